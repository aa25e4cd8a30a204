/* hello_sbx.c - libsbx in 30 lines: open the policy for the current
 * directory, run a shell command in the sandbox with its output captured,
 * and print what it wrote, how it ended and what the sandbox refused.
 * Build and run: see examples/README.md. */
#include <stdio.h>
#include <sbx.h>

int main(int argc, char **argv)
{
	struct sbx_opts opts = {
		0
	}; /* the current directory, default profile */
	struct sbx_run_req req = { .shell = argc > 1 ? argv[1]
						     : "ls; cat ~/.ssh/id_rsa",
				   .capture = 1 };
	struct sbx_result *res;
	char err[1024];
	sbx_t *s;

	if (sbx_open(&s, &opts, err, sizeof(err)) != SBX_OK ||
	    sbx_run(s, &req, &res, err, sizeof(err)) != SBX_OK) {
		fprintf(stderr, "hello_sbx: %s\n", err);
		return 125;
	}
	printf("stdout:\n%s", res->out ? res->out : "");
	printf("exit status: %d%s\n", res->exit_code,
	       res->timed_out ? " (timed out)" : "");
	for (size_t i = 0; i < res->nrefusals; i++)
		printf("refused: %s %s (%s)\n  %s\n", res->refusals[i].op,
		       res->refusals[i].target, res->refusals[i].kind,
		       res->refusals[i].message);
	sbx_result_free(res);
	sbx_close(s);
	return 0;
}
