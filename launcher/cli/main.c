/*
 * main.c - sbxrun: everything is in libsbx (cli.c and below).
 */
#include "cli.h"

int main(int argc, char **argv)
{
	return sbx_cli_main(argc, argv);
}
