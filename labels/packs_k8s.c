/*
 * labels/packs_k8s.c - the kubernetes pack: kubectl (and the distributions
 * that ship it under another name), helm, kustomize piped into kubectl
 * (rules language: pack.h).
 */
#include <string.h>

#include "pack.h"

#define D LOCUS_TAG_DESTRUCTIVE
#define S LOCUS_TAG_SECRETS
#define KUBECTL "kubectl oc kubecolor"

/* kubectl's global options that take a value may come before the verb:
   `kubectl -n prod --context live delete ns prod`. */
#define KUBECTL_VALUES                                                         \
	"-n --namespace --context --kubeconfig --cluster --user -s --server "  \
	"--token --as --as-group --as-uid --certificate-authority "            \
	"--client-certificate --client-key --tls-server-name -v --v "          \
	"--request-timeout --cache-dir --profile --profile-output "            \
	"--password --username --log-file -l --selector -o --output -f "       \
	"--filename -k --kustomize --field-selector --grace-period "           \
	"--timeout --replicas -c --container"
#define HELM_VALUES                                                            \
	"-n --namespace --kube-context --kubeconfig --kube-apiserver "         \
	"--kube-as-user --kube-as-group --kube-token --kube-ca-file "          \
	"--registry-config --repository-cache --repository-config "            \
	"--burst-limit --qps --timeout -f --values --set --set-string "        \
	"--set-file --version --description"

static const pk_grammar grammars[] = {
    {KUBECTL " microk8s k3s", KUBECTL_VALUES,
     "-A --all-namespaces --all --force -w --watch --wait --now "
     "--ignore-daemonsets --delete-emptydir-data --overwrite -i -t "
     "--stdin --tty"},
    {"helm", HELM_VALUES,
     "--force --wait --atomic --install -i --dry-run --debug "
     "--reset-values --reuse-values --keep-history --all-namespaces -A"},
    {NULL, NULL, NULL},
};

/* `kubectl delete` fed a manifest on stdin by kustomize (or anything):
   the resources it deletes are unknown; it is already tagged by the
   delete rule, this only names the pipe in the reasons. */
static bool fed_by_kustomize(const locus_shell_command *c,
                             const ll_context *ctx)
{
	(void)ctx;
	return (c->flags & LOCUS_CMD_PIPED_IN) != 0;
}

static const pk_rule rules[] = {
    {KUBECTL, "delete", NULL,
     "--help -h --dry-run=client "
     "--dry-run=server",
     D, "kubernetes: kubectl delete removes cluster resources", NULL, 0},
    {KUBECTL, "delete", "-k --kustomize -f=- --filename=-", NULL, D,
     "kubernetes: kubectl delete -k/-f removes every resource of a "
     "manifest",
     NULL, 0},
    {KUBECTL, "delete", NULL, NULL, D,
     "kubernetes: a manifest piped into kubectl delete removes its "
     "resources",
     fed_by_kustomize, 0},
    {KUBECTL, "drain", NULL,
     "--help -h --dry-run=client "
     "--dry-run=server",
     D, "kubernetes: kubectl drain evicts every pod of a node", NULL, 0},
    {KUBECTL, "cordon", NULL,
     "--help -h --dry-run=client "
     "--dry-run=server",
     D, "kubernetes: kubectl cordon stops scheduling on a node", NULL, 0},
    {KUBECTL, "taint", "~NoExecute", "--help -h", D,
     "kubernetes: kubectl taint NoExecute evicts pods from a node", NULL, 0},
    {KUBECTL, "scale", "--replicas=0",
     "--help -h --dry-run=client "
     "--dry-run=server",
     D, "kubernetes: kubectl scale --replicas=0 stops a workload", NULL, 0},
    {KUBECTL, "replace|apply", "--force --prune",
     "--help -h "
     "--dry-run=client --dry-run=server",
     D,
     "kubernetes: kubectl replace/apply --force or --prune deletes and "
     "recreates resources",
     NULL, 0},
    {KUBECTL, "rollout undo", NULL,
     "--help -h --dry-run=client "
     "--dry-run=server",
     D, "kubernetes: kubectl rollout undo rolls a workload back", NULL, 0},
    {"microk8s k3s", "kubectl delete|drain|cordon", NULL, "--help -h", D,
     "kubernetes: kubectl delete removes cluster resources", NULL, 0},
    {"microk8s", "reset|remove-node", NULL, "--help -h", D,
     "kubernetes: microk8s reset removes every workload", NULL, 0},
    {"helm", "uninstall|delete|del|un", NULL, "--help -h --dry-run", D,
     "kubernetes: helm uninstall removes a release", NULL, 0},
    {"helm", "rollback", NULL, "--help -h --dry-run", D,
     "kubernetes: helm rollback replaces a release with an old revision", NULL,
     0},
    {"helm", "upgrade", "--force --reset-values", "--help -h --dry-run", D,
     "kubernetes: helm upgrade --force deletes and recreates "
     "resources",
     NULL, 0},
    {"kind minikube k3d", "delete", NULL, "--help -h", D,
     "kubernetes: kind/minikube delete removes a cluster", NULL, 0},
    {"k3d", "cluster|node|registry delete", NULL, "--help -h", D,
     "kubernetes: kind/minikube delete removes a cluster", NULL, 0},
    {"kubectl oc",
     "get secret|secrets|secret/*|secrets/*|sa|"
     "serviceaccount",
     "-o=yaml -o=json --output=yaml --output=json "
     "~jsonpath ~go-template ~custom-columns",
     "--help -h", S, "secrets: kubectl get secret -o yaml prints secret data",
     NULL, 0},
    /* without --raw it redacts only `token`, `password` and the key
       data: an auth-provider's client-secret and refresh-token and an
       exec plugin's args and env are printed as they are */
    {"kubectl oc", "config view", NULL, "--help -h", S,
     "secrets: kubectl config view prints cluster credentials (--raw all of "
     "them; without it auth-provider secrets and exec plugin env)",
     NULL, 0},
    {"kubectl oc", "create token", NULL, "--help -h", S,
     "secrets: kubectl create token prints a service account token", NULL, 0},
    {NULL, NULL, NULL, NULL, 0, NULL, NULL, 0},
};

const pk_pack pk_kubernetes = {"kubernetes", grammars, rules};
