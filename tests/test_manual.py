#!/usr/bin/env python3
"""tests/test_manual.py LOCUS MAN_DIR SOURCE_ROOT - the generated man page and completions.

- the man page renders without a groff warning, names the version `locus --version`
  says, and has a section for every command of `locus --help`;
- the bash completion, sourced in bash, completes commands, a command's options, a
  subcommand's options, and an option's choices;
- the zsh completion is valid zsh when zsh is installed (only that part is skipped
  otherwise);
- no option is hidden: every long option the command line's sources compare an argument
  with (cli/, agents/) is in the completion, so in some `--help` (the generator reads
  only the usage texts).
"""
import glob
import os
import re
import shutil
import subprocess
import sys

fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


def complete(bash_file, words, cword):
    script = ('source %s; COMP_WORDS=(%s); COMP_CWORD=%d; _locus; printf "%%s\\n" '
              '"${COMPREPLY[@]}"' % (bash_file, ' '.join("'%s'" % w for w in words), cword))
    r = subprocess.run(['bash', '--norc', '-c', script], capture_output=True, text=True)
    check(r.returncode == 0, 'completion of %s failed: %s' % (words, r.stderr))
    return set(r.stdout.split())


def main(argv):
    locus, mandir, root = argv[1:4]
    version = subprocess.run([locus, '--version'], capture_output=True, text=True).stdout.split()[1]
    page = open(os.path.join(mandir, 'locus.1'), encoding='utf-8').read()
    check('.TH LOCUS 1 "" "locus %s"' % version in page, 'the man page does not say ' + version)
    helptext = subprocess.run([locus, '--help'], capture_output=True, text=True).stdout
    cmds = re.findall(r'^  ([a-z][a-z-]*) ', helptext, re.M)
    check(len(cmds) >= 9, 'commands: %s' % cmds)
    for c in cmds:
        check('\n.SS %s\n' % c in page, 'no section for ' + c)
    if shutil.which('groff'):
        r = subprocess.run(['groff', '-man', '-Tutf8', '-ww', '-z', os.path.join(mandir, 'locus.1')],
                           capture_output=True, text=True)
        check(r.returncode == 0 and not r.stderr.strip(), 'groff: ' + r.stderr.strip())
    bash = os.path.join(mandir, 'locus')
    check(complete(bash, ['locus', 'ga'], 1) == {'gate', 'gateway'}, 'locus ga<TAB>')
    check({'--policy', '--preset'} <= complete(bash, ['locus', 'gate', '--p'], 2),
          'locus gate --p<TAB>')
    check('--format' in complete(bash, ['locus', 'audit', 'transcripts', '--fo'], 3),
          'locus audit transcripts --fo<TAB>')
    check(complete(bash, ['locus', 'tool', 'read', '{}', '--backend', ''], 5)
          == {'local', 'memory', 'bwrap', 'oci', 'openshell'}, 'locus tool --backend <TAB>')
    check({'install', 'doctor', 'claude-code'} <= complete(bash, ['locus', 'hook', ''], 2),
          'locus hook <TAB>')
    zsh = shutil.which('zsh')
    if zsh:
        r = subprocess.run([zsh, '-n', os.path.join(mandir, '_locus')], capture_output=True,
                           text=True)
        check(r.returncode == 0, 'zsh -n: ' + r.stderr)
    else:
        print('note: zsh is not installed; the zsh completion was not parsed')
    offered = set(re.findall(r'--[a-z][a-z0-9-]+', open(bash, encoding='utf-8').read()))
    used = set()
    for f in glob.glob(os.path.join(root, 'cli', '*.c')) + glob.glob(os.path.join(root, 'agents', '*.c')):
        used |= set(re.findall(r'"(--[a-z][a-z0-9-]*[a-z0-9])"', open(f, encoding='utf-8').read()))
    # literals that are other programs' options, not locus's
    others = {
        '--prompt', '--prompt-interactive',  # Gemini CLI's, read by agents/hook_ask.c
    }
    hidden = sorted(used - offered - others)
    check(not hidden, 'options accepted but in no --help: %s' % ' '.join(hidden))
    for f in fails:
        print('FAIL: ' + f)
    print('%d checks failed' % len(fails))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
