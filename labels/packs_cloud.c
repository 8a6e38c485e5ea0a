/*
 * labels/packs_cloud.c - the cloud pack: aws, gcloud/gsutil/bq, az, and the
 * smaller clouds' CLIs (rules language: pack.h).  Destroying verbs are a
 * rule, not a list: every `delete-*`, `terminate-*`, `remove-*`... verb of
 * every aws service, every `delete` of gcloud and az.
 */
#include "pack.h"

#define D LOCUS_TAG_DESTRUCTIVE
#define S LOCUS_TAG_SECRETS

#define AWS_VALUES                                                             \
	"--profile --region --output --endpoint-url --color --ca-bundle "      \
	"--cli-read-timeout --cli-connect-timeout --query --cli-binary-format"
#define AWS_FLAGS                                                              \
	"--debug --no-verify-ssl --no-paginate --no-sign-request "             \
	"--no-cli-pager --no-cli-auto-prompt --recursive --force --dryrun "    \
	"--quiet --delete"
#define GCLOUD_VALUES                                                          \
	"--project --account --configuration --format --verbosity "            \
	"--impersonate-service-account --billing-project --flags-file "        \
	"--zone --region --filter --limit --sort-by --trace-token"
#define AZ_VALUES                                                              \
	"--subscription --output -o --query --only-show-errors -g "            \
	"--resource-group -n --name"

static const pk_grammar grammars[] = {
    {"aws awslocal", AWS_VALUES, AWS_FLAGS},
    {"gcloud", GCLOUD_VALUES, "--quiet -q --async --verbosity=debug"},
    {"gsutil", "-o -h -u -p", "-m -q -D -d -r -R -f"},
    {"az", AZ_VALUES, "--yes -y --no-wait --debug --verbose"},
    {NULL, NULL, NULL},
};

static const pk_rule rules[] = {
    {"aws awslocal",
     "* delete-*|batch-delete-*|terminate-*|remove-*|"
     "deregister-*|purge-*|destroy-*|schedule-key-deletion|disable-key|"
     "stop-instances|revoke-*|detach-*|cancel-*",
     NULL, "help --dry-run --generate-cli-skeleton", D,
     "cloud: aws delete-*/terminate-*/remove-* destroys cloud resources", NULL,
     0},
    {"aws awslocal", "s3 rm|rb", NULL, "--dryrun help", D,
     "cloud: aws s3 rm/rb deletes objects or buckets", NULL, 0},
    {"aws awslocal", "s3 sync", "--delete", "--dryrun help", D,
     "cloud: aws s3 sync --delete/mv deletes objects", NULL, 0},
    {"aws awslocal", "s3 mv", NULL, "--dryrun help", D,
     "cloud: aws s3 sync --delete/mv deletes objects", NULL, 0},
    {"aws awslocal", "configure get|export-credentials", NULL, "help", S,
     "cloud: aws configure get/export-credentials prints credentials", NULL, 0},
    {"aws awslocal",
     "sts get-session-token|assume-role|"
     "get-federation-token|assume-role-with-web-identity",
     NULL, "help", S, "cloud: aws sts prints temporary credentials", NULL, 0},
    {"aws awslocal",
     "ecr|ecr-public get-login-password|"
     "get-authorization-token",
     NULL, "help", S,
     "cloud: aws ecr get-login-password prints a registry token", NULL, 0},
    {"aws awslocal",
     "secretsmanager get-secret-value|batch-get-secret-"
     "value",
     NULL, "help", S,
     "cloud: aws secretsmanager get-secret-value prints a secret", NULL, 0},
    {"aws awslocal",
     "ssm get-parameter|get-parameters|"
     "get-parameters-by-path",
     "--with-decryption", "help", S,
     "cloud: aws ssm get-parameter --with-decryption prints a secret", NULL, 0},
    {"gcloud", "... delete|remove-*|reset|purge", NULL, "--help -h help", D,
     "cloud: gcloud delete destroys cloud resources", NULL, 0},
    {"gcloud", "storage rm", NULL, "--help -h", D,
     "cloud: gcloud storage rm deletes objects", NULL, 0},
    {"gcloud",
     "auth|alpha|beta print-access-token|"
     "print-identity-token|application-default",
     NULL, "--help -h", S,
     "cloud: gcloud auth print-access-token prints a credential", NULL, 0},
    {"gcloud", "... secrets versions access", NULL, "--help -h", S,
     "cloud: gcloud secrets versions access prints a secret", NULL, 0},
    {"gcloud", "... config config-helper", NULL, "--help -h", S,
     "cloud: gcloud config config-helper prints a credential", NULL, 0},
    {"gsutil", "rm|rb", NULL, NULL, D,
     "cloud: gsutil rm/rb deletes objects or buckets", NULL, 0},
    {"gsutil", "rsync", "-d", NULL, D, "cloud: gsutil rsync -d deletes objects",
     NULL, 0},
    {"bq", "query", NULL, "--help", D,
     "databases: the statements given to the client destroy data (DROP, "
     "TRUNCATE, DELETE/UPDATE without WHERE, FLUSHALL...)",
     pk_sql_statements_destroy, 0},
    {"bq", "rm", NULL, "--help", D, "cloud: bq rm deletes datasets or tables",
     NULL, 0},
    {"az",
     "... delete|delete-*|purge|remove|remove-*|deallocate|"
     "stop",
     NULL, "--help -h", D, "cloud: az delete destroys cloud resources", NULL,
     0},
    {"az", "account get-access-token", NULL, "--help -h", S,
     "cloud: az account get-access-token prints a credential", NULL, 0},
    {"az", "keyvault secret show|download", NULL, "--help -h", S,
     "cloud: az keyvault secret show prints a secret", NULL, 0},
    {"doctl", "... delete|rm|d", NULL, "--help -h", D,
     "cloud: doctl delete destroys cloud resources", NULL, 0},
    {"hcloud linode-cli vultr-cli scw oci flyctl fly heroku",
     "... "
     "delete|destroy|rm|remove|terminate|apps:destroy|pg:reset",
     NULL, "--help -h", D,
     "cloud: a cloud CLI's delete/destroy verb removes resources", NULL, 0},
    {"heroku", "auth:token", NULL, NULL, S,
     "cloud: heroku auth:token prints a credential", NULL, 0},
    {"vault", "read|kv|token|login|print", NULL, "--help -h", S,
     "cloud: vault read/kv get prints secrets", NULL, 0},
    {"vault", "delete", NULL, "--help -h", D,
     "cloud: vault delete/destroy removes secrets", NULL, 0},
    {"vault", "kv destroy|delete|metadata", NULL, "--help -h", D,
     "cloud: vault delete/destroy removes secrets", NULL, 0},
    {"vault", "secrets|auth|lease disable|revoke", NULL, "--help -h", D,
     "cloud: vault delete/destroy removes secrets", NULL, 0},
    {"heroku", "config", NULL, "--help -h", S,
     "secrets: heroku config prints an app's secrets", NULL, 0},
    {NULL, NULL, NULL, NULL, 0, NULL, NULL, 0},
};

const pk_pack pk_cloud = {"cloud", grammars, rules};
