/*
 * labels/packs_infra.c - the infrastructure pack: terraform and its forks,
 * terragrunt, pulumi, ansible (rules language: pack.h).
 */
#include <string.h>

#include "pack.h"

#define D LOCUS_TAG_DESTRUCTIVE
#define TF "terraform tofu opentofu"

static const pk_grammar grammars[] = {
    /* terraform's options are -name=value; -chdir and -var/-var-file
       forms are handled as options (the matcher tries both readings of
       a word after an unknown option). */
    {"pulumi", "-C --cwd -s --stack --color --config-file", "-y --yes"},
    {"ansible",
     "-m --module-name -a --args -i --inventory -u --user "
     "-e --extra-vars -f --forks -l --limit -b --become",
     NULL},
    {NULL, NULL, NULL},
};

/* ansible HOSTS -m shell|command|raw|script -a 'PAYLOAD': the payload runs
   on every host; parsed as shell and judged like a line of its own. */
static const char *ansible_payload(const locus_shell_command *c)
{
	bool shell_module = false;
	const char *payload = NULL;
	for (size_t i = 1; i < c->argc; i++) {
		const char *v = pk_option_value(c, &i, "-m", "--module-name");
		if (v) {
			shell_module =
			    strcmp(v, "shell") == 0 ||
			    strcmp(v, "command") == 0 ||
			    strcmp(v, "raw") == 0 || strstr(v, ".shell") ||
			    strstr(v, ".command") || strstr(v, ".raw");
			continue;
		}
		const char *p = pk_option_value(c, &i, "-a", "--args");
		if (p)
			payload = p;
	}
	/* Without -m the module is `command`. */
	return shell_module || payload ? payload : NULL;
}

static bool ansible_destroys(const locus_shell_command *c,
                             const ll_context *ctx)
{
	const char *p = ansible_payload(c);
	if (!p)
		return false;
	locus_shell_result *r = locus_shell_parse(p, strlen(p), NULL);
	if (!r)
		return true; /* out of memory: fail closed */
	bool bad = !locus_shell_result_parsed(r);
	size_t n = locus_shell_result_count(r);
	/* An ansible inside the payload would recurse here: held as is. */
	for (size_t i = 0; !bad && i < n; i++) {
		const char *name = locus_shell_result_command(r, i)->name;
		bad = strncmp(name, "ansible", 7) == 0;
	}
	if (!bad) {
		const uint32_t destroying =
		    LOCUS_TAG_DESTRUCTIVE | LOCUS_TAG_NEVER |
		    LOCUS_TAG_SHUTDOWN | LOCUS_TAG_FORCE_PUSH |
		    LOCUS_TAG_REMOTE_CODE;
		uint32_t tags = 0;
		/* the labeller's entry (ll_context), set by label.c; out of
		   memory or none: fail closed (held) */
		bad = !ctx || !ctx->line_tags ||
		      ctx->line_tags(r, &tags) != 0 || (tags & destroying) != 0;
	}
	locus_shell_result_free(r);
	return bad;
}

static const pk_rule rules[] = {
    {TF, "destroy", NULL, "-help -h", D,
     "infrastructure: terraform destroy removes infrastructure", NULL, 0},
    {TF, "apply", "-auto-approve -destroy #", "-help -h", D,
     "infrastructure: terraform apply without review (-auto-approve, "
     "-destroy or a saved plan) changes or destroys infrastructure",
     NULL, 0},
    {TF, "state rm|mv|replace-provider|push", NULL, "-help -h -dry-run", D,
     "infrastructure: terraform state rm/mv/push rewrites the state", NULL, 0},
    {TF, "workspace delete", NULL, "-help -h", D,
     "infrastructure: terraform workspace delete drops a workspace's "
     "state",
     NULL, 0},
    {TF, "taint", NULL, "-help -h", D,
     "infrastructure: terraform taint forces a resource to be destroyed "
     "and recreated",
     NULL, 0},
    {TF, "force-unlock", NULL, "-help -h", D,
     "infrastructure: terraform force-unlock breaks another run's state "
     "lock",
     NULL, 0},
    {"terragrunt", "destroy|destroy-all|apply-all", NULL, "-help -h", D,
     "infrastructure: terragrunt destroy/apply-all changes or removes "
     "infrastructure",
     NULL, 0},
    {"terragrunt", "run-all|run destroy|apply", NULL, "-help -h", D,
     "infrastructure: terragrunt run-all destroy/apply changes or "
     "removes every module",
     NULL, 0},
    {"terragrunt", "apply", "-auto-approve -destroy #", "-help -h", D,
     "infrastructure: terraform apply without review (-auto-approve, "
     "-destroy or a saved plan) changes or destroys infrastructure",
     NULL, 0},
    {"pulumi", "destroy|down", NULL, "--help -h --preview-only", D,
     "infrastructure: pulumi destroy removes every resource of a stack", NULL,
     0},
    {"pulumi", "up|update", "--yes -y --skip-preview -f", "--help -h", D,
     "infrastructure: pulumi up --yes changes infrastructure without "
     "review",
     NULL, 0},
    {"pulumi", "refresh", "--yes -y --skip-preview", "--help -h", D,
     "infrastructure: pulumi refresh --yes rewrites the state without "
     "review",
     NULL, 0},
    {"pulumi", "stack rm|remove", NULL, "--help -h", D,
     "infrastructure: pulumi stack rm deletes a stack", NULL, 0},
    {"pulumi", "state delete|unprotect|move|rename", NULL, "--help -h", D,
     "infrastructure: pulumi state delete rewrites the state", NULL, 0},
    {"pulumi", "cancel", NULL, "--help -h", D,
     "infrastructure: pulumi cancel aborts a running update", NULL, 0},
    {"ansible", NULL, NULL, "--help -h --version --list-hosts",
     LOCUS_TAG_NETWORK, "infrastructure: ansible runs tasks on remote hosts",
     NULL, 0},
    {"ansible-playbook ansible-pull", NULL, NULL,
     "--help -h --version --list-hosts --list-tasks --syntax-check",
     LOCUS_TAG_NETWORK,
     "infrastructure: ansible-playbook runs tasks on remote hosts", NULL, 0},
    {"ansible", NULL, NULL, NULL, D,
     "infrastructure: ansible runs a destructive shell command on every "
     "host",
     ansible_destroys, 0},
    {NULL, NULL, NULL, NULL, 0, NULL, NULL, 0},
};

const pk_pack pk_infrastructure = {"infrastructure", grammars, rules};
