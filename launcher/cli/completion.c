/*
 * completion.c - bash, zsh and fish completion scripts generated from the
 * option table (cli.c, read through cli_option), so a new option is
 * completed as soon as it exists and a removed one disappears.  Printed at
 * build time by tools/gen_completion.c and installed by make install.
 *
 * What the table does not say is how to complete an option's argument;
 * that is the short list below, keyed by option name (an entry naming an
 * option the table lacks is an error, so the list cannot drift).  An
 * argument named PATH or FILE completes file names; anything else not in
 * the list completes nothing (SECS, STRING, ...).  After the command (the
 * first word that is neither an option nor an option's argument, or the
 * word after "--") each shell completes that command's own words.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

enum arg_kind {
	ARG_NONE,
	ARG_FILE,
	ARG_DIR,
	ARG_WORDS,
	ARG_PROFILE,
	ARG_ENV,
};

static const struct arg_rule {
	const char *opt;
	enum arg_kind kind;
	const char *words; /* ARG_WORDS: the values, space-separated */
} arg_rules[] = {
	{ "profile", ARG_PROFILE, NULL },
	{ "mode", ARG_WORDS, "auto full landlock-only" },
	/* allow:HOST is left out until the filtering proxy exists. */
	{ "net", ARG_WORDS, "off loopback on" },
	{ "caches", ARG_WORDS, "on off" },
	{ "hook", ARG_WORDS, "claude-code" },
	{ "workdir", ARG_DIR, NULL },
	{ "env-keep", ARG_ENV, NULL },
};
#define NRULES (sizeof(arg_rules) / sizeof(arg_rules[0]))

struct opt {
	struct cli_optinfo i;
	enum arg_kind kind;
	const char *words;
};

#define MAX_OPTS 128

/* The table with each option's argument kind; -1 if a rule names an
 * option that does not exist. */
static int load_opts(struct opt *o, size_t *n)
{
	*n = 0;
	while (*n < MAX_OPTS && cli_option(*n, &o[*n].i)) {
		struct opt *x = &o[*n];
		const char *m = x->i.meta ? x->i.meta : "";

		x->kind = !x->i.has_arg				   ? ARG_NONE
			  : strstr(m, "PATH") || strstr(m, "FILE") ? ARG_FILE
								   : ARG_NONE;
		x->words = NULL;
		(*n)++;
	}
	for (size_t r = 0; r < NRULES; r++) {
		size_t k;

		for (k = 0; k < *n; k++)
			if (strcmp(o[k].i.name, arg_rules[r].opt) == 0)
				break;
		if (k == *n || !o[k].i.has_arg) {
			fprintf(stderr,
				"completion: a rule names --%s, which is "
				"not an option with an argument\n",
				arg_rules[r].opt);
			return -1;
		}
		o[k].kind = arg_rules[r].kind;
		o[k].words = arg_rules[r].words;
	}
	return 0;
}

/* s inside '...' for a POSIX shell, bash, zsh or fish (fish also
 * escapes a backslash). */
static void put_squoted(FILE *fp, const char *s, int fish)
{
	fputc('\'', fp);
	for (; *s; s++) {
		if (*s == '\'')
			fputs(fish ? "\\'" : "'\\''", fp);
		else if (*s == '\\' && fish)
			fputs("\\\\", fp);
		else
			fputc(*s, fp);
	}
	fputc('\'', fp);
}

/* The words of one kind of option ("-c --command --profile ..."). */
static void put_names(FILE *fp, const struct opt *o, size_t n, int with_arg,
		      const char *sep)
{
	const char *s = "";

	for (size_t i = 0; i < n; i++) {
		if (with_arg >= 0 && o[i].i.has_arg != with_arg)
			continue;
		if (o[i].i.short_name) {
			fprintf(fp, "%s-%c", s, o[i].i.short_name);
			s = sep;
		}
		fprintf(fp, "%s--%s", s, o[i].i.name);
		s = sep;
	}
}

/* ------------------------------------------------------------ bash */

static const char bash_head[] =
	"_sbxrun_profiles()\n"
	"{\n"
	"\tlocal d f\n"
	"\tfor d in \"${XDG_CONFIG_HOME:-$HOME/.config}/sbxrun/profiles\" "
	"\"$_sbxrun_datadir/profiles\"; do\n"
	"\t\tfor f in \"$d\"/*.conf; do\n"
	"\t\t\t[[ -e $f ]] || continue\n"
	"\t\t\tf=${f##*/}\n"
	"\t\t\tprintf '%s\\n' \"${f%.conf}\"\n"
	"\t\tdone\n"
	"\tdone\n"
	"}\n\n"
	"_sbxrun()\n"
	"{\n"
	"\t# $2 is the word before the cursor as readline splits it: after\n"
	"\t# \"--opt=\" it is what follows the \"=\".\n"
	"\tlocal cur=$2 prev i cmd=0\n"
	"\tCOMPREPLY=()\n"
	"\t# Where the sandboxed command starts, if it has.\n"
	"\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	"\t\tcase ${COMP_WORDS[i]} in\n"
	"\t\t--) cmd=$((i + 1)); break ;;\n";

static const char bash_mid[] =
	"\t\t\t[[ ${COMP_WORDS[i + 1]} == = ]] && ((i++))\n"
	"\t\t\t((i++)) ;;\n"
	"\t\t-*) ;;\n"
	"\t\t*) cmd=$i; break ;;\n"
	"\t\tesac\n"
	"\tdone\n"
	"\tif ((cmd > 0)); then\n"
	"\t\tif declare -F _command_offset >/dev/null; then\n"
	"\t\t\t_command_offset \"$cmd\"\n"
	"\t\telif ((cmd == COMP_CWORD)); then\n"
	"\t\t\tCOMPREPLY=($(compgen -c -- \"$cur\"))\n"
	"\t\telse\n"
	"\t\t\tcompopt -o filenames 2>/dev/null\n"
	"\t\t\tmapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
	"\t\tfi\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\t# \"--opt=value\" is three words: --opt, = and value.\n"
	"\tprev=${COMP_WORDS[COMP_CWORD - 1]}\n"
	"\t[[ $prev == = ]] && prev=${COMP_WORDS[COMP_CWORD - 2]}\n"
	"\tcase $prev in\n";

static const char bash_tail[] =
	"\tesac\n"
	"\tif [[ $cur == -* ]]; then\n"
	"\t\tCOMPREPLY=($(compgen -W \"$_sbxrun_options\" -- \"$cur\"))\n"
	"\telse\n"
	"\t\tCOMPREPLY=($(compgen -c -- \"$cur\"))\n"
	"\tfi\n"
	"\treturn 0\n"
	"}\n"
	"complete -F _sbxrun sbxrun\n";

static void bash_case(FILE *fp, const struct opt *o, size_t n,
		      enum arg_kind kind, const char *action)
{
	const char *s = "\t";

	for (size_t i = 0; i < n; i++) {
		if (!o[i].i.has_arg || o[i].kind != kind)
			continue;
		if (kind == ARG_WORDS) {
			fprintf(fp, "\t--%s)\n\t\tCOMPREPLY=($(compgen -W ",
				o[i].i.name);
			put_squoted(fp, o[i].words, 0);
			fputs(" -- \"$cur\"))\n\t\treturn 0 ;;\n", fp);
			continue;
		}
		if (o[i].i.short_name) {
			fprintf(fp, "%s-%c", s, o[i].i.short_name);
			s = "|";
		}
		fprintf(fp, "%s--%s", s, o[i].i.name);
		s = "|";
	}
	if (*s == '|')
		fprintf(fp, ")\n%s\n\t\treturn 0 ;;\n", action);
}

static void gen_bash(FILE *fp, const struct opt *o, size_t n,
		     const char *datadir)
{
	fputs("_sbxrun_datadir=", fp);
	put_squoted(fp, datadir, 0);
	fputs("\n_sbxrun_options=", fp);
	fputc('\'', fp);
	put_names(fp, o, n, -1, " ");
	fputs("'\n\n", fp);
	fputs(bash_head, fp);
	fputs("\t\t", fp);
	put_names(fp, o, n, 1, "|");
	fputs(")\n", fp);
	fputs(bash_mid, fp);
	bash_case(fp, o, n, ARG_FILE,
		  "\t\tcompopt -o filenames 2>/dev/null\n"
		  "\t\tmapfile -t COMPREPLY < <(compgen -f -- \"$cur\")");
	bash_case(fp, o, n, ARG_DIR,
		  "\t\tcompopt -o filenames 2>/dev/null\n"
		  "\t\tmapfile -t COMPREPLY < <(compgen -d -- \"$cur\")");
	bash_case(fp, o, n, ARG_PROFILE,
		  "\t\tcompopt -o filenames 2>/dev/null\n"
		  "\t\tmapfile -t COMPREPLY < <(compgen -W "
		  "\"$(_sbxrun_profiles)\" -- \"$cur\"; compgen -f -- "
		  "\"$cur\")");
	bash_case(fp, o, n, ARG_ENV,
		  "\t\tCOMPREPLY=($(compgen -e -- \"$cur\"))");
	bash_case(fp, o, n, ARG_WORDS, NULL);
	bash_case(fp, o, n, ARG_NONE, "\t\t: # free text");
	fputs(bash_tail, fp);
}

/* ------------------------------------------------------------ zsh */

/* Text for inside [...] of an _arguments spec. */
static void put_zsh_help(FILE *fp, const char *s)
{
	fputc('[', fp);
	for (; *s; s++) {
		if (*s == '[' || *s == ']' || *s == '\\' || *s == ':')
			fputc('\\', fp);
		if (*s == '\'')
			fputs("'\\''", fp);
		else
			fputc(*s, fp);
	}
	fputc(']', fp);
}

static const char *zsh_action(const struct opt *o)
{
	switch (o->kind) {
	case ARG_FILE: return "_files";
	case ARG_DIR: return "_files -/";
	case ARG_PROFILE: return "_sbxrun_profiles";
	case ARG_ENV: return "_parameters -g \"*export*\"";
	case ARG_WORDS: return NULL; /* (words) */
	case ARG_NONE: break;
	}
	return " ";
}

static void zsh_spec(FILE *fp, const struct opt *o)
{
	const char *act = zsh_action(o);

	fputs("\t", fp);
	if (o->i.short_name)
		fprintf(fp, "'(-%c --%s)'{-%c%s,--%s%s}'", o->i.short_name,
			o->i.name, o->i.short_name, o->i.has_arg ? "+" : "",
			o->i.name, o->i.has_arg ? "=" : "");
	else
		fprintf(fp, "'--%s%s", o->i.name, o->i.has_arg ? "=" : "");
	put_zsh_help(fp, o->i.help);
	if (o->i.has_arg) {
		fprintf(fp, ":%s:", o->i.meta ? o->i.meta : "ARG");
		if (act)
			fputs(act, fp);
		else
			fprintf(fp, "(%s)", o->words);
	}
	fputs("' \\\n", fp);
}

static void gen_zsh(FILE *fp, const struct opt *o, size_t n,
		    const char *datadir)
{
	fputs("_sbxrun_profiles() {\n"
	      "\tlocal -a names\n"
	      "\tlocal d\n"
	      "\tfor d in ${XDG_CONFIG_HOME:-$HOME/.config}/sbxrun/profiles ",
	      fp);
	put_squoted(fp, datadir, 0);
	fputs("/profiles; do\n"
	      "\t\tnames+=( $d/*.conf(N:t:r) )\n"
	      "\tdone\n"
	      "\t_alternative \"profiles:profile:(${names[*]})\" "
	      "'files:profile file:_files'\n"
	      "}\n\n"
	      "_arguments -s -S \\\n",
	      fp);
	for (size_t i = 0; i < n; i++)
		zsh_spec(fp, &o[i]);
	fputs("\t'(-)1:command: _command_names -e' \\\n"
	      "\t'*::arguments: _normal'\n",
	      fp);
}

/* ------------------------------------------------------------ fish */

static const char fish_head[] =
	"# The index in (commandline -opc) where the sandboxed command\n"
	"# starts, if it has started: the first word that is neither an\n"
	"# option nor an option's argument, or the word after --.\n"
	"function __sbxrun_command_start\n"
	"\tset -l toks (commandline -opc)\n"
	"\tset -l i 2\n"
	"\twhile test $i -le (count $toks)\n"
	"\t\tswitch $toks[$i]\n"
	"\t\t\tcase --\n"
	"\t\t\t\tmath $i + 1\n"
	"\t\t\t\treturn 0\n"
	"\t\t\tcase ";

static const char fish_mid[] =
	"\n"
	"\t\t\t\tset i (math $i + 2)\n"
	"\t\t\tcase '-*'\n"
	"\t\t\t\tset i (math $i + 1)\n"
	"\t\t\tcase '*'\n"
	"\t\t\t\techo $i\n"
	"\t\t\t\treturn 0\n"
	"\t\tend\n"
	"\tend\n"
	"\treturn 1\n"
	"end\n\n"
	"function __sbxrun_in_command\n"
	"\t__sbxrun_command_start >/dev/null\n"
	"end\n\n"
	"# Complete the sandboxed command as if it were typed alone.\n"
	"function __sbxrun_complete_command\n"
	"\tset -l toks (commandline -opc)\n"
	"\tset -l start (__sbxrun_command_start); or return\n"
	"\tset -l words\n"
	"\tif test $start -le (count $toks)\n"
	"\t\tset words (string escape -- $toks[$start..-1])\n"
	"\tend\n"
	"\tcomplete -C (string join -- ' ' $words (commandline -ct))\n"
	"end\n\n"
	"function __sbxrun_profiles\n"
	"\tset -l d (set -q XDG_CONFIG_HOME; and echo $XDG_CONFIG_HOME; "
	"or echo ~/.config)/sbxrun/profiles\n"
	"\tfor f in $d/*.conf $__sbxrun_datadir/profiles/*.conf\n"
	"\t\tstring replace -r '.*/(.*)\\.conf$' '$1' -- $f\n"
	"\tend\n"
	"end\n\n"
	"complete -c sbxrun -n __sbxrun_in_command -f "
	"-a '(__sbxrun_complete_command)'\n"
	"complete -c sbxrun -n 'not __sbxrun_in_command' -f "
	"-a '(__fish_complete_command)'\n";

static void fish_spec(FILE *fp, const struct opt *o)
{
	fputs("complete -c sbxrun -n 'not __sbxrun_in_command'", fp);
	if (o->i.short_name)
		fprintf(fp, " -s %c", o->i.short_name);
	fprintf(fp, " -l %s", o->i.name);
	if (o->i.has_arg) {
		switch (o->kind) {
		case ARG_FILE: fputs(" -r -F", fp); break;
		case ARG_DIR:
			fputs(" -x -a '(__fish_complete_directories)'", fp);
			break;
		case ARG_PROFILE:
			fputs(" -r -a '(__sbxrun_profiles)'", fp);
			break;
		case ARG_ENV:
			fputs(" -x -a '(set --names --export)'", fp);
			break;
		case ARG_WORDS:
			fputs(" -x -a ", fp);
			put_squoted(fp, o->words, 1);
			break;
		case ARG_NONE: fputs(" -x", fp); break;
		}
	}
	fputs(" -d ", fp);
	put_squoted(fp, o->i.help, 1);
	fputc('\n', fp);
}

static void gen_fish(FILE *fp, const struct opt *o, size_t n,
		     const char *datadir)
{
	fputs("set -g __sbxrun_datadir ", fp);
	put_squoted(fp, datadir, 1);
	fputs("\n\n", fp);
	fputs(fish_head, fp);
	put_names(fp, o, n, 1, " ");
	fputs(fish_mid, fp);
	for (size_t i = 0; i < n; i++)
		fish_spec(fp, &o[i]);
}

int cli_completion(FILE *fp, const char *shell, const char *datadir)
{
	static struct opt o[MAX_OPTS];
	size_t n;

	if (load_opts(o, &n) < 0)
		return -1;
	if (strcmp(shell, "zsh") == 0)
		fputs("#compdef sbxrun\n", fp);
	else if (strcmp(shell, "bash") != 0 && strcmp(shell, "fish") != 0)
		return -1;
	fprintf(fp,
		"# %s completion for sbxrun(1), generated from its option "
		"table by\n# tools/gen_completion (launcher/cli/"
		"completion.c): do not edit.\n\n",
		shell);
	if (strcmp(shell, "bash") == 0)
		gen_bash(fp, o, n, datadir);
	else if (strcmp(shell, "zsh") == 0)
		gen_zsh(fp, o, n, datadir);
	else
		gen_fish(fp, o, n, datadir);
	return ferror(fp) ? -1 : 0;
}
