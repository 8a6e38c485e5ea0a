/*
 * labels/packs_containers.c - the containers pack: docker, podman,
 * nerdctl and their compose tools (rules language: pack.h).
 */
#include "pack.h"

#define D LOCUS_TAG_DESTRUCTIVE
#define V LOCUS_TAG_PRIVILEGE
#define S LOCUS_TAG_SECRETS
#define O LOCUS_TAG_OUTSIDE
#define DOCKER "docker podman nerdctl"
#define COMPOSE "docker-compose podman-compose"

#define DOCKER_VALUES                                                          \
	"-H --host -c --context --config -l --log-level --tlscacert "          \
	"--tlscert --tlskey --url --connection --root --runroot "              \
	"--storage-driver --namespace -n --address -a --cgroup-manager"
#define COMPOSE_VALUES                                                         \
	"-f --file -p --project-name --profile --env-file "                    \
	"--project-directory --ansi --parallel --progress -t --timeout --rmi"

#define HOST_ESCAPES                                                           \
	"--privileged --pid=host --network=host --net=host --ipc=host "        \
	"--userns=host --uts=host --cgroupns=host --cap-add --device "         \
	"~seccomp=unconfined ~apparmor=unconfined ~label=disable ~/:/ "        \
	"~docker.sock ~podman.sock ~containerd.sock"
#define HOST_REASON                                                            \
	"containers: the container is given the host (privileged, host "       \
	"namespaces, devices, capabilities, the host's root or container "     \
	"socket mounted)"

static const pk_grammar grammars[] = {
    {DOCKER, DOCKER_VALUES " " COMPOSE_VALUES,
     "-D --debug --tls --tlsverify -v --volumes --remove-orphans "
     "-a --all -f --force"},
    {COMPOSE, COMPOSE_VALUES,
     "-v --volumes --remove-orphans -f --force -s --stop"},
    {NULL, NULL, NULL},
};

/* clang-format off */
static const pk_rule rules[] = {
    {DOCKER, "system|volume|image|network|container|builder|buildx prune", NULL,
     "--help -h", D,
     "containers: docker prune deletes containers, images, volumes or "
     "networks",
     NULL, 0},
    {"podman", "system reset|renumber", NULL, "--help -h", D,
     "containers: podman system reset deletes every container, image "
     "and volume",
     NULL, 0},
    {DOCKER, "rm", "-f --force -v --volumes $", "--help -h", D,
     "containers: docker rm -f removes running containers (or their "
     "volumes)",
     NULL, 0},
    {DOCKER, "container rm|remove", "-f --force -v --volumes $", "--help -h", D,
     "containers: docker rm -f removes running containers (or their "
     "volumes)",
     NULL, 0},
    {DOCKER, "rmi", "-f --force $", "--help -h", D,
     "containers: docker rmi -f deletes images in use", NULL, 0},
    {DOCKER, "image rm|remove", "-f --force $", "--help -h", D,
     "containers: docker rmi -f deletes images in use", NULL, 0},
    {DOCKER, "volume rm|remove", NULL, "--help -h", D,
     "containers: docker volume rm deletes a volume's data", NULL, 0},
    {DOCKER, "stop|kill", "$ -a --all", "--help -h", D,
     "containers: docker stop/kill of computed container lists stops "
     "everything",
     NULL, 0},
    {DOCKER, "container stop|kill", "$ -a --all", "--help -h", D,
     "containers: docker stop/kill of computed container lists stops "
     "everything",
     NULL, 0},
    {DOCKER, "pod rm|prune|kill", NULL, "--help -h", D,
     "containers: podman pod rm/prune deletes pods", NULL, 0},
    {DOCKER, "service|stack rm|remove", NULL, "--help -h", D,
     "containers: docker service/stack rm removes a deployment", NULL, 0},
    {DOCKER, "swarm leave", "-f --force", "--help -h", D,
     "containers: docker swarm leave --force drops a manager's state", NULL, 0},
    {DOCKER, "compose down", "-v --volumes --rmi", "--help -h", D,
     "containers: compose down -v/--rmi deletes volumes or images", NULL, 0},
    {DOCKER, "compose rm", "-v --volumes -f --force", "--help -h", D,
     "containers: compose rm -f/-v deletes containers or their volumes", NULL,
     0},
    {COMPOSE, "down", "-v --volumes --rmi", "--help -h", D,
     "containers: compose down -v/--rmi deletes volumes or images", NULL, 0},
    {COMPOSE, "rm", "-v --volumes -f --force", "--help -h", D,
     "containers: compose rm -f/-v deletes containers or their volumes", NULL,
     0},
    /* A container given the host: privileged, the host's
       namespaces, devices, capabilities, no confinement, the host's root
       or the Docker socket mounted (`docker run --privileged -v /:/host`) */
    {DOCKER, "run|create", HOST_ESCAPES, "--help -h", V, HOST_REASON, NULL, 0},
    {DOCKER, "container run|create", HOST_ESCAPES, "--help -h", V,
     HOST_REASON, NULL, 0},
    {COMPOSE, "run", HOST_ESCAPES, "--help -h", V, HOST_REASON, NULL, 0},
    {DOCKER, "compose run", HOST_ESCAPES, "--help -h", V, HOST_REASON, NULL,
     0},
    {"docker podman", "secret inspect", NULL, NULL, S,
     "secrets: docker secret inspect prints a secret", NULL, 0},
    /* the person's own client config, with no path on the line
       (checked by a red team: docker logout removed the auth entry of
       ~/.docker/config.json; docker context create/use wrote
       ~/.docker/contexts and "currentContext", which every later docker
       command the person runs follows) */
    {DOCKER, "logout", NULL, "--help -h", O,
     "outside-workspace: docker logout removes the person's stored "
     "registry login (~/.docker/config.json)",
     NULL, 0},
    {DOCKER, "context create|use|rm|remove|update|import", NULL, "--help -h",
     O,
     "outside-workspace: docker context create/use/rm changes the "
     "person's contexts (~/.docker), which every later docker command "
     "follows",
     NULL, 0},
    /* docker 23+ runs `docker builder` as buildx (docs) */
    {DOCKER, "buildx|builder create", "--use", "--help -h", O,
     "outside-workspace: docker buildx create --use changes the person's "
     "current builder (~/.docker/buildx)",
     NULL, 0},
    {DOCKER, "buildx|builder use|rm|remove", NULL, "--help -h", O,
     "outside-workspace: docker buildx use/rm changes the person's "
     "builders (~/.docker/buildx)",
     NULL, 0},
    {NULL, NULL, NULL, NULL, 0, NULL, NULL, 0},
};
/* clang-format on */

const pk_pack pk_containers = {"containers", grammars, rules};
