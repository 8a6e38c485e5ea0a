/*
 * labels/packs_platforms.c - hosted platforms and package registries: gh,
 * glab, hub, and publishing/unpublishing packages (rules language:
 * pack.h).  Everything `gh` does is already exec:network; these rules add
 * what destroys.
 */
#include "pack.h"

#define D LOCUS_TAG_DESTRUCTIVE
#define N LOCUS_TAG_NETWORK
#define S LOCUS_TAG_SECRETS
#define O LOCUS_TAG_OUTSIDE

static const pk_grammar grammars[] = {
    {"gh glab",
     "-R --repo -X --method -H --header -f --field -F "
     "--raw-field --hostname -q --jq -t --template",
     "--yes -y --confirm --paginate -i --include --silent"},
    {"npm pnpm yarn",
     "--registry --otp --tag --access --workspace -w "
     "--prefix -C --dir",
     NULL},
    {"compileall", "-d -x -i -r -j -e -p -s -o --invalidation-mode",
     "-l -f -q -b --hardlink-dupes"},
    {NULL, NULL, NULL},
};

/* clang-format off */
static const pk_rule rules[] = {
    {"glab hub", NULL, NULL, "--help -h --version", N,
     "platforms: glab/hub reach the hosted platform", NULL, 0},
    {"gh glab",
     "repo|release|secret|variable|gist|issue|run|cache|label|"
     "ssh-key|gpg-key|deploy-key|project|ruleset|environment|codespace|"
     "extension|alias|mr|snippet|schedule|token "
     "delete|remove|rm|del|purge",
     NULL, "--help -h", D,
     "platforms: gh/glab delete removes hosted repositories, releases, "
     "secrets or other resources",
     NULL, 0},
    {"gh glab", "repo deploy-key delete|remove", NULL, "--help -h", D,
     "platforms: gh/glab delete removes hosted repositories, releases, "
     "secrets or other resources",
     NULL, 0},
    {"gh glab", "repo archive|edit", "--visibility ~archive", "--help -h", D,
     "platforms: gh repo archive/visibility change alters a hosted "
     "repository",
     NULL, 0},
    {"gh glab", "api",
     "-X=DELETE --method=DELETE -X=PUT --method=PUT "
     "-X=PATCH --method=PATCH",
     "--help -h", D,
     "platforms: gh api -X DELETE/PUT/PATCH changes hosted resources", NULL, 0},
    {"gh", "auth token", NULL, "--help -h", S,
     "platforms: gh auth token prints the GitHub token", NULL, 0},
    {"gh glab", "auth status", "-t --show-token", "--help -h", S,
     "platforms: gh auth status --show-token prints the token", NULL, 0},
    {"hub", "delete", NULL, "--help -h", D,
     "platforms: hub delete removes a hosted repository", NULL, 0},
    {"npm pnpm", "unpublish|deprecate", NULL, "--help -h --dry-run", D,
     "platforms: npm unpublish/deprecate withdraws a published package", NULL,
     0},
    {"npm pnpm yarn", "dist-tag|dist-tags rm|remove", NULL, "--help -h", D,
     "platforms: npm dist-tag rm withdraws a published tag", NULL, 0},
    /* the person's own registry config (~/.npmrc, ~/.yarnrc): every
       later install reads it (checked by a red team: pnpm wrote
       registry=... to ~/.npmrc); `--location=project` (./.npmrc) is
       held the same, over-read */
    {"npm pnpm", "config|c set|delete|edit|fix", NULL, "--help -h", O,
     "outside-workspace: config set writes the person's package manager "
     "config (~/.npmrc), read by every later install",
     NULL, 0},
    {"yarn", "config set|delete|unset", NULL, "--help -h", O,
     "outside-workspace: config set writes the person's package manager "
     "config (~/.yarnrc), read by every later install",
     NULL, 0},
    /* the person's stored registry login, with no path on the line
       (checked by a red team: cargo logout removed the token from
       ~/.cargo/credentials.toml) */
    {"cargo", "logout", NULL, "--help -h", O,
     "outside-workspace: cargo logout removes the person's registry token "
     "(~/.cargo/credentials.toml)",
     NULL, 0},
    /* rustup's proxy takes `+TOOLCHAIN` first (checked by a red team:
       `cargo +nightly logout` removed the token) */
    {"cargo", "+* logout", NULL, "--help -h", O,
     "outside-workspace: cargo logout removes the person's registry token "
     "(~/.cargo/credentials.toml)",
     NULL, 0},
    /* checked by a red team: cargo uninstall deleted the binary from
       ~/.cargo/bin (a --root outside the workspace is held as a path
       too; one inside is held the same, over-read) */
    {"cargo", "uninstall", NULL, "--help -h", O,
     "outside-workspace: cargo uninstall deletes installed programs "
     "(~/.cargo/bin)",
     NULL, 0},
    {"cargo", "+* uninstall", NULL, "--help -h", O,
     "outside-workspace: cargo uninstall deletes installed programs "
     "(~/.cargo/bin)",
     NULL, 0},
    /* pipx keeps its programs in ~/.local/share/pipx and ~/.local/bin */
    {"pipx", "uninstall|uninstall-all|reinstall-all|reinstall", NULL,
     "--help -h", O,
     "outside-workspace: pipx uninstall/reinstall deletes or replaces the "
     "person's installed programs (~/.local/bin, ~/.local/share/pipx)",
     NULL, 0},
    /* RubyGems' own credentials and sources (~/.gem/credentials,
       ~/.gemrc); these forms also reach the network (net_subs) */
    {"gem", "signin", NULL, "--help -h", O,
     "outside-workspace: gem signin writes the person's RubyGems "
     "credentials (~/.gem/credentials)",
     NULL, 0},
    {"gem", "sources", "--add -a --remove -r --clear-all -c $", "--help -h",
     O,
     "outside-workspace: gem sources --add/--remove changes the person's "
     "gem sources (~/.gemrc), read by every later install",
     NULL, 0},
    {"gem", "signout", NULL, "--help -h", O,
     "outside-workspace: gem signout removes the person's RubyGems "
     "credentials (~/.gem/credentials)",
     NULL, 0},
    /* checked by a red team: `python3 -m compileall` wrote
       __pycache__ (.pyc files) into ~/.local/lib/python3.11/site-packages */
    {"compileall", NULL, NULL, "# --help -h", O,
     "outside-workspace: python -m compileall with no folder compiles "
     "every folder of sys.path, writing __pycache__ outside the workspace",
     NULL, 0},
    {"npm", "token list|ls|create", NULL, "--help -h", S,
     "platforms: npm token prints registry tokens", NULL, 0},
    /* npm's built-in `env` script (and yarn v1's): with no "env" in
       package.json it prints the whole environment (checked by a red
       team: GITHUB_TOKEN=... printed); with one it runs that */
    {"npm", "run|run-script|rum|urn env", NULL, "--help -h", S,
     "platforms: npm run env prints the environment (npm's built-in env "
     "script)",
     NULL, 0},
    {"yarn", "run env", NULL, "--help -h", S,
     "platforms: yarn run env prints the environment (yarn's built-in env "
     "script)",
     NULL, 0},
    {"yarn", "env", NULL, "--help -h", S,
     "platforms: yarn env runs the env script (yarn v1: the built-in one "
     "prints the environment)",
     NULL, 0},
    {"cargo", "yank|owner", NULL, "--help -h", D | N,
     "platforms: cargo yank withdraws a published crate", NULL, 0},
    {"gem", "yank|owner", NULL, "--help -h", D | N,
     "platforms: gem yank withdraws a published gem", NULL, 0},
    {"twine", "upload|register", NULL, "--help -h", N,
     "platforms: twine upload publishes a package", NULL, 0},
    {"poetry pdm flit hatch uv", "publish", NULL, "--help -h --dry-run", N,
     "platforms: publish uploads a package to a registry", NULL, 0},
    {"mvn mvnw", "...", "~deploy ~release:perform", "--help -h", N,
     "platforms: mvn deploy publishes artifacts", NULL, 0},
    {"gradle gradlew", "...", "~publish", "--help -h", N,
     "platforms: gradle publish uploads artifacts", NULL, 0},
    {"dotnet", "nuget push|delete", NULL, "--help -h", N,
     "platforms: dotnet nuget push/delete changes a registry", NULL, 0},
    {"dotnet", "nuget delete", NULL, "--help -h", D,
     "platforms: dotnet nuget delete withdraws a package", NULL, 0},
    {NULL, NULL, NULL, NULL, 0, NULL, NULL, 0},
};
/* clang-format on */

const pk_pack pk_platforms = {"platforms", grammars, rules};
