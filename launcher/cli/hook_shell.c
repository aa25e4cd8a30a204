/*
 * hook_shell.c - the shell side of hook mode: the rewritten command
 * (quoting and base64), and a small lexer that finds the programs a shell
 * command would run, so that the hook can refuse a denied program before
 * anything runs.
 *
 * The lexer is a convenience, not the boundary: it does not expand
 * anything and a determined command can hide a program from it (eval,
 * variables, scripts).  The exec rules are enforced again inside the
 * sandbox by the shim on every exec, whatever the hook saw.  What the
 * lexer must never do is misread ordinary commands into a false refusal:
 * it respects quotes, skips comments and here-document bodies, and drops
 * redirections and assignments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook.h"

/* ------------------------------------------------------------ quoting */

char *sbx_sh_quote(const char *s)
{
	size_t n = 2, i;
	char *q, *p;

	for (i = 0; s[i]; i++)
		n += s[i] == '\'' ? 4 : 1;
	q = malloc(n + 1);
	if (!q)
		return NULL;
	p = q;
	*p++ = '\'';
	for (i = 0; s[i]; i++) {
		if (s[i] == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = s[i];
		}
	}
	*p++ = '\'';
	*p = '\0';
	return q;
}

/* Strict decoder: padding only at the end, nothing but the alphabet.
 * Returns a malloc'ed NUL-terminated buffer (*outlen bytes) or NULL. */
char *sbx_base64_decode(const char *s, size_t *outlen)
{
	size_t n = strlen(s), o = 0, pad = 0;
	unsigned v = 0;
	char *out;

	if (n % 4)
		return NULL;
	out = malloc(n / 4 * 3 + 1);
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char c = s[i];
		int d = c >= 'A' && c <= 'Z'   ? c - 'A'
			: c >= 'a' && c <= 'z' ? c - 'a' + 26
			: c >= '0' && c <= '9' ? c - '0' + 52
			: c == '+'	       ? 62
			: c == '/'	       ? 63
			: c == '='	       ? 0
					       : -1;

		if (d < 0 || (c == '=' && i < n - 2) || (pad && c != '='))
			goto bad;
		pad += c == '=';
		v = v << 6 | (unsigned)d;
		if (i % 4 == 3) {
			out[o++] = (char)(v >> 16);
			out[o++] = (char)(v >> 8);
			out[o++] = (char)v;
			v = 0;
		}
	}
	o -= pad;
	out[o] = '\0';
	*outlen = o;
	return out;
bad:
	free(out);
	return NULL;
}

char *sbx_base64(const void *data, size_t len)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *d = data;
	size_t olen, i, o = 0;
	char *out;

	if (len > (SIZE_MAX - 1) / 4 * 3 - 3)
		return NULL;
	olen = (len + 2) / 3 * 4;
	out = malloc(olen + 1);
	if (!out)
		return NULL;
	for (i = 0; i + 2 < len; i += 3) {
		unsigned v = (unsigned)d[i] << 16 | (unsigned)d[i + 1] << 8 |
			     d[i + 2];

		out[o++] = tab[v >> 18 & 63];
		out[o++] = tab[v >> 12 & 63];
		out[o++] = tab[v >> 6 & 63];
		out[o++] = tab[v & 63];
	}
	if (i < len) {
		unsigned v = (unsigned)d[i] << 16 |
			     (i + 1 < len ? (unsigned)d[i + 1] << 8 : 0);

		out[o++] = tab[v >> 18 & 63];
		out[o++] = tab[v >> 12 & 63];
		out[o++] = i + 1 < len ? tab[v >> 6 & 63] : '=';
		out[o++] = '=';
	}
	out[o] = '\0';
	return out;
}

/* ------------------------------------------------------------ rewrite */

struct sbuf {
	char *s;
	size_t len, cap;
	int oom;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t nc = b->cap ? b->cap : 256;
		char *ns;

		while (nc < b->len + n + 1)
			nc *= 2;
		ns = realloc(b->s, nc);
		if (!ns) {
			b->oom = 1;
			return;
		}
		b->s = ns;
		b->cap = nc;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_str(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

/* " " then the word single-quoted. */
static void sb_word(struct sbuf *b, const char *s)
{
	char *q = sbx_sh_quote(s);

	if (!q) {
		b->oom = 1;
		return;
	}
	sb_str(b, " ");
	sb_str(b, q);
	free(q);
}

/* An override "name=value" is the command-line option --name value. */
static void sb_override(struct sbuf *b, const char *ov)
{
	const char *eq = strchr(ov, '=');
	char opt[64];

	if (!eq || eq == ov || (size_t)(eq - ov) >= sizeof(opt) - 2)
		return;
	snprintf(opt, sizeof(opt), "--%.*s", (int)(eq - ov), ov);
	sb_str(b, " ");
	sb_str(b, opt);
	sb_word(b, eq + 1);
}

/*
 * The original command, readable, as a comment after the rewritten one:
 * a person reviewing the agent's transcript sees what runs, not only
 * base64.  A comment ends at a newline, so every control byte (newlines
 * too) is shown as '?' and nothing of it can become a command; long
 * commands are cut at READABLE_MAX bytes with "...".  sbxrun never reads
 * it: the command it runs is the base64 one.
 */
#define READABLE_MAX 300

static void sb_readable(struct sbuf *b, const char *cmd, size_t len)
{
	const unsigned char *u = (const unsigned char *)cmd;
	size_t n = len;

	/* the text is UTF-8 (it came as JSON): cut on a character */
	if (n > READABLE_MAX)
		for (n = READABLE_MAX; n > 0 && (u[n] & 0xc0) == 0x80; n--)
			;
	sb_str(b, " # ");
	for (size_t i = 0; i < n; i++) {
		/* C0, DEL, and C1 (U+0080..U+009F, c2 80..c2 9f) */
		if (u[i] == 0xc2 && i + 1 < n && u[i + 1] >= 0x80 &&
		    u[i + 1] <= 0x9f) {
			sb_str(b, "?");
			i++;
		} else if (u[i] < 0x20 || u[i] == 0x7f) {
			sb_str(b, "?");
		} else {
			sb_add(b, cmd + i, 1);
		}
	}
	if (n < len)
		sb_str(b, "...");
}

char *sbx_hook_rewrite(const char *sbxrun, const char *cwd, const char *cmd,
		       size_t len, const struct sbx_opts *o)
{
	struct sbuf b = { 0 };
	char *b64 = sbx_base64(cmd, len);

	char *exe = sbx_sh_quote(sbxrun);

	if (!b64 || !exe) {
		free(b64);
		free(exe);
		return NULL;
	}
	sb_str(&b, exe);
	free(exe);
	if (o && o->profile) {
		sb_str(&b, " --profile");
		sb_word(&b, o->profile);
	}
	if (o && o->mode == SBX_MODE_FULL)
		sb_str(&b, " --mode full");
	else if (o && o->mode == SBX_MODE_LANDLOCK_ONLY)
		sb_str(&b, " --mode landlock-only");
	if (o && (o->flags & SBX_OPT_QUIET))
		sb_str(&b, " --quiet");
	if (o && (o->flags & SBX_OPT_UNSAFE_PROJECT))
		sb_str(&b, " --unsafe-project");
	for (size_t i = 0; o && o->overrides && o->overrides[i]; i++)
		sb_override(&b, o->overrides[i]);
	sb_str(&b, " --workdir");
	sb_word(&b, cwd);
	/* sbxrun decodes the command itself: nothing in the agent's own,
	 * unsandboxed shell runs a program found through its PATH (a
	 * sandboxed step could have planted one in .venv/bin). */
	sb_str(&b, " --command-base64 '");
	sb_str(&b, b64);
	sb_str(&b, "'");
	free(b64);
	sb_readable(&b, cmd, len);
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

/* ------------------------------------------------------------ lexer */

#define MAX_DEPTH 64
#define MAX_HEREDOCS 64

enum lmode { L_NORMAL, L_SQ, L_DQ, L_ANSI };
enum fkind { F_TOP, F_PAREN, F_BQ };
enum redir { R_NONE, R_TARGET, R_HEREDOC, R_HEREDOC_TABS };

struct frame {
	enum fkind kind;
	enum lmode mode;
	char **argv;
	size_t argc, cap;
	struct sbuf word;
	int in_word;
	int digits_only; /* the word so far is an fd number */
	enum redir pending;
};

struct heredoc {
	char *delim;
	int tabs;
};

struct lexer {
	const char *s;
	size_t len, i;
	struct frame f[MAX_DEPTH];
	int depth; /* index of the top frame */
	struct heredoc hd[MAX_HEREDOCS];
	size_t nhd;
	sbx_hook_cmd_fn fn;
	void *ctx;
	int stop; /* fn's non-zero answer */
	int oom;
};

static struct frame *top(struct lexer *x)
{
	return &x->f[x->depth];
}

static void addc(struct lexer *x, char c)
{
	struct frame *f = top(x);

	if (!f->in_word)
		f->digits_only = 1;
	f->in_word = 1;
	if (c < '0' || c > '9')
		f->digits_only = 0;
	sb_add(&f->word, &c, 1);
	if (f->word.oom)
		x->oom = 1;
}

/* A quote or substitution: part of a word, never an fd number. */
static void mark_word(struct lexer *x)
{
	struct frame *f = top(x);

	f->in_word = 1;
	f->digits_only = 0;
}

static void push_arg(struct lexer *x, struct frame *f, char *w)
{
	if (f->argc + 2 > f->cap) {
		size_t nc = f->cap ? f->cap * 2 : 8;
		char **nv = realloc(f->argv, nc * sizeof(*nv));

		if (!nv) {
			free(w);
			x->oom = 1;
			return;
		}
		f->argv = nv;
		f->cap = nc;
	}
	f->argv[f->argc++] = w;
	f->argv[f->argc] = NULL;
}

static void end_word(struct lexer *x)
{
	struct frame *f = top(x);
	char *w;

	if (!f->in_word)
		return;
	w = f->word.s ? f->word.s : strdup("");
	f->word = (struct sbuf){ 0 };
	f->in_word = 0;
	if (!w) {
		x->oom = 1;
		return;
	}
	if (f->pending == R_HEREDOC || f->pending == R_HEREDOC_TABS) {
		if (x->nhd < MAX_HEREDOCS) {
			x->hd[x->nhd].delim = w;
			x->hd[x->nhd++].tabs = f->pending == R_HEREDOC_TABS;
		} else {
			free(w);
		}
	} else if (f->pending == R_TARGET) {
		free(w);
	} else {
		push_arg(x, f, w);
	}
	f->pending = R_NONE;
}

static void free_args(struct frame *f)
{
	for (size_t i = 0; i < f->argc; i++)
		free(f->argv[i]);
	f->argc = 0;
	if (f->argv)
		f->argv[0] = NULL;
}

static void end_command(struct lexer *x)
{
	struct frame *f;

	end_word(x);
	f = top(x);
	f->pending = R_NONE;
	if (f->argc && !x->stop && !x->oom)
		x->stop = x->fn(x->ctx, f->argv);
	free_args(f);
}

static int push(struct lexer *x, enum fkind k)
{
	if (x->depth + 1 >= MAX_DEPTH)
		return -1;
	x->depth++;
	memset(top(x), 0, sizeof(struct frame));
	top(x)->kind = k;
	return 0;
}

static void pop(struct lexer *x)
{
	struct frame *f;

	end_command(x);
	f = top(x);
	free(f->argv);
	free(f->word.s);
	memset(f, 0, sizeof(*f));
	if (x->depth > 0)
		x->depth--;
}

/* i is at an unquoted newline: skip the bodies of the pending
 * here-documents; i ends on the newline that closes the last one. */
static void skip_heredocs(struct lexer *x)
{
	size_t i = x->i;

	for (size_t h = 0; h < x->nhd; h++) {
		const char *d = x->hd[h].delim;
		size_t dl = strlen(d);

		while (i < x->len) {
			size_t st = i + 1, e;

			if (st >= x->len) {
				i = x->len;
				break;
			}
			e = st;
			while (e < x->len && x->s[e] != '\n')
				e++;
			if (x->hd[h].tabs)
				while (st < e && x->s[st] == '\t')
					st++;
			i = e;
			if (e - st == dl && memcmp(x->s + st, d, dl) == 0)
				break;
		}
		free(x->hd[h].delim);
		x->hd[h].delim = NULL;
	}
	x->nhd = 0;
	x->i = i;
}

static char peek(const struct lexer *x, size_t ahead)
{
	return x->i + ahead < x->len ? x->s[x->i + ahead] : '\0';
}

/* ${...}: copied into the word, up to the matching brace. */
static void param(struct lexer *x)
{
	int nest = 0;

	for (; x->i < x->len; x->i++) {
		char c = x->s[x->i];

		addc(x, c);
		if (c == '{')
			nest++;
		else if (c == '}' && --nest == 0)
			return;
	}
}

/* A substitution inside a word: the word holds "$" in its place. */
static int subst(struct lexer *x, enum fkind k)
{
	addc(x, '$');
	mark_word(x);
	return push(x, k);
}

static void redirection(struct lexer *x, char c)
{
	struct frame *f = top(x);

	if (f->in_word && f->digits_only) { /* 2>file: fd number */
		free(f->word.s);
		f->word = (struct sbuf){ 0 };
		f->in_word = 0;
	}
	end_word(x);
	f->pending = R_TARGET;
	if (c == '<' && peek(x, 1) == '<') {
		x->i++;
		if (peek(x, 1) == '<') { /* <<< here-string */
			x->i++;
		} else if (peek(x, 1) == '-') {
			x->i++;
			f->pending = R_HEREDOC_TABS;
		} else {
			f->pending = R_HEREDOC;
		}
		return;
	}
	if (peek(x, 1) == '>' || peek(x, 1) == '&' || peek(x, 1) == '|' ||
	    (c == '<' && peek(x, 1) == '>'))
		x->i++;
}

static int step_normal(struct lexer *x)
{
	struct frame *f = top(x);
	char c = x->s[x->i], n = peek(x, 1);

	switch (c) {
	case '\\':
		if (n == '\n')
			x->i++;
		else if (x->i + 1 < x->len) {
			addc(x, n);
			mark_word(x);
			x->i++;
		}
		return 0;
	case '\'':
		mark_word(x);
		f->mode = L_SQ;
		return 0;
	case '"':
		mark_word(x);
		f->mode = L_DQ;
		return 0;
	case '$':
		if (n == '\'') {
			mark_word(x);
			f->mode = L_ANSI;
			x->i++;
		} else if (n == '(') {
			x->i++;
			return subst(x, F_PAREN);
		} else if (n == '{') {
			param(x);
		} else {
			addc(x, c);
		}
		return 0;
	case '`':
		if (f->kind == F_BQ) {
			pop(x);
			return 0;
		}
		return subst(x, F_BQ);
	case '<':
	case '>':
		if (n == '(') {
			x->i++;
			return subst(x, F_PAREN);
		}
		redirection(x, c);
		return 0;
	case ' ':
	case '\t': end_word(x); return 0;
	case '\n':
		end_command(x);
		if (x->nhd)
			skip_heredocs(x);
		return 0;
	case ';':
	case '&':
	case '|': end_command(x); return 0;
	case '(': end_command(x); return push(x, F_PAREN);
	case ')':
		if (f->kind == F_PAREN)
			pop(x);
		else
			end_command(x);
		return 0;
	case '#':
		if (!f->in_word) {
			while (x->i + 1 < x->len && x->s[x->i + 1] != '\n')
				x->i++;
			return 0;
		}
		addc(x, c);
		return 0;
	default: addc(x, c); return 0;
	}
}

static int step_dq(struct lexer *x)
{
	struct frame *f = top(x);
	char c = x->s[x->i], n = peek(x, 1);

	if (c == '"') {
		f->mode = L_NORMAL;
	} else if (c == '\\' && n && strchr("$`\"\\\n", n)) {
		if (n != '\n')
			addc(x, n);
		x->i++;
	} else if (c == '$' && n == '(') {
		x->i++;
		return subst(x, F_PAREN);
	} else if (c == '$' && n == '{') {
		param(x);
	} else if (c == '`') {
		return subst(x, F_BQ);
	} else {
		addc(x, c);
	}
	return 0;
}

int sbx_hook_commands(const char *cmd, size_t len, sbx_hook_cmd_fn fn,
		      void *ctx)
{
	struct lexer *x = calloc(1, sizeof(*x));
	int r = 0;

	if (!x)
		return -1;
	x->s = cmd;
	x->len = len;
	x->fn = fn;
	x->ctx = ctx;
	for (x->i = 0; x->i < x->len && !x->stop && !x->oom; x->i++) {
		struct frame *f = top(x);
		char c = x->s[x->i];

		switch (f->mode) {
		case L_SQ:
			if (c == '\'')
				f->mode = L_NORMAL;
			else
				addc(x, c);
			break;
		case L_ANSI:
			if (c == '\\' && x->i + 1 < x->len)
				addc(x, x->s[++x->i]);
			else if (c == '\'')
				f->mode = L_NORMAL;
			else
				addc(x, c);
			break;
		case L_DQ: r = step_dq(x); break;
		case L_NORMAL: r = step_normal(x); break;
		}
		if (r < 0) /* nested too deep: stop looking */
			break;
	}
	while (x->depth > 0)
		pop(x);
	end_command(x);
	free(x->f[0].argv);
	free(x->f[0].word.s);
	for (size_t h = 0; h < x->nhd; h++)
		free(x->hd[h].delim);
	r = x->oom ? -1 : x->stop;
	free(x);
	return r;
}

/* ------------------------------------------------------------ programs */

static int is_assignment(const char *w)
{
	const char *p = w;

	if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
	      *p == '_'))
		return 0;
	while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
	       (*p >= '0' && *p <= '9') || *p == '_')
		p++;
	return *p == '=' || (p[0] == '+' && p[1] == '=');
}

static int in_list(const char *w, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(w, *list) == 0)
			return 1;
	return 0;
}

/* Words after which the next word is the program. */
static const char *const prefix_words[] = { "!",     "{",	"if", "then",
					    "else",  "elif",	"do", "while",
					    "until", "builtin", NULL };
/* Wrappers that run their arguments, after their own options. */
static const char *const wrappers[] = { "time", "exec", "nohup", "setsid",
					NULL };
/* Words that start something that runs no program by itself. */
static const char *const no_program[] = { "case", "esac",     "for",  "select",
					  "in",	  "function", "done", "fi",
					  "}",	  "[[",	      "]]",   NULL };

int sbx_hook_program(char *const argv[])
{
	int i = 0;

	for (;;) {
		const char *w = argv[i];

		if (!w)
			return -1;
		if (is_assignment(w) || in_list(w, prefix_words)) {
			i++;
		} else if (in_list(w, wrappers)) {
			for (i++; argv[i] && argv[i][0] == '-'; i++)
				if (!strcmp(argv[i], "-a") && argv[i + 1])
					i++; /* exec -a NAME */
		} else if (strcmp(w, "command") == 0) {
			i++;
			for (; argv[i] && argv[i][0] == '-'; i++)
				if (strchr(argv[i], 'v') ||
				    strchr(argv[i], 'V'))
					return -1; /* a lookup */
		} else if (strcmp(w, "env") == 0) {
			/* options (the ones with an argument too) and
			 * assignments */
			for (i++; argv[i]; i++) {
				if (!strcmp(argv[i], "-u") ||
				    !strcmp(argv[i], "-C") ||
				    !strcmp(argv[i], "-S")) {
					if (!argv[++i])
						return -1;
				} else if (argv[i][0] != '-' &&
					   !strchr(argv[i], '=')) {
					break;
				}
			}
		} else if (strcmp(w, "nice") == 0) {
			for (i++; argv[i] && argv[i][0] == '-'; i++)
				if (!strcmp(argv[i], "-n") && argv[i + 1])
					i++;
		} else if (in_list(w, no_program) || w[0] == '\0') {
			return -1;
		} else {
			return i;
		}
	}
}
