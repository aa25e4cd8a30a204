/*
 * main.c - sbxrun: the CLI is cli.c and cli_actions.c, on libsbx.
 */
#include "cli.h"

int main(int argc, char **argv)
{
	return cli_main(argc, argv);
}
