// tests/mcp/hook-snippets.mjs - the hook configurations of
// docs/integrations.md, run as the agents run them: the snippet's command
// string through `sh -c`, in a project folder, with a recorded payload on
// stdin (tests/hook-payloads/), `locus` found on PATH.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { check, done, locusBin, cannotRun, tempDir, envWithLocus, snippet, sourceRoot } from './lib.mjs';

if (!locusBin) cannotRun('LOCUS_BIN is not set');
const project = tempDir('project');
const home = tempDir('home');
// the agents set these for their hooks; HOME is a fresh folder so the
// developer's own ~/.claude/settings.json is not read
const env = { ...envWithLocus(), CLAUDE_PROJECT_DIR: project, GEMINI_PROJECT_DIR: project, HOME: home };
const payload = (f) => fs.readFileSync(path.join(sourceRoot, 'tests', 'hook-payloads', f), 'utf8');

// Claude Code: the settings file is the project's .claude/settings.json
const claudeText = snippet('claude-settings');
const claude = JSON.parse(claudeText);
fs.mkdirSync(path.join(project, '.claude'));
fs.writeFileSync(path.join(project, '.claude', 'settings.json'), claudeText);
const claudeHook = claude.hooks.PreToolUse[0];
const claudeCmd = claudeHook.hooks[0].command;
check(claudeHook.hooks[0].type === 'command' && /\blocus hook claude-code --jail --claude-project "\$CLAUDE_PROJECT_DIR"/.test(claudeCmd),
  'claude-code snippet runs locus hook claude-code --jail', claudeCmd);

// Codex: config.toml (the lines we need, read without a TOML library)
const codexText = snippet('codex-config');
function codexMatcherOf(event) {
  const re = new RegExp(`\\[\\[hooks\\.${event}\\]\\]\\s*\\nmatcher = "([^"]+)"`);
  return (codexText.match(re) || [])[1];
}
const codexCmd = (codexText.match(/\[\[hooks\.PreToolUse\.hooks\]\][^[]*?command = "([^"]+)"/) || [])[1];
check(/\blocus hook codex --jail\b/.test(codexCmd || ''), 'codex snippet runs locus hook codex --jail', codexCmd);
check(/\[mcp_servers\.locus\]\s*\ncommand = "locus"\s*\nargs = \["mcp"/.test(codexText),
  'codex snippet declares the locus MCP server');

// Gemini: settings.json
const gemini = JSON.parse(snippet('gemini-settings'));
const geminiCmd = gemini.hooks.BeforeTool[0].hooks[0].command;
check(/\blocus hook gemini --jail\b/.test(geminiCmd), 'gemini snippet runs locus hook gemini --jail', geminiCmd);
check(gemini.mcpServers?.locus?.command === 'locus' && gemini.mcpServers.locus.args[0] === 'mcp',
  'gemini snippet declares the locus MCP server');

function runHook(cmd, input) {
  const r = spawnSync('sh', ['-c', cmd], { cwd: project, env, input, encoding: 'utf8', timeout: 60000 });
  let json = null;
  try { json = r.stdout ? JSON.parse(r.stdout) : null; } catch { /* checked by callers */ }
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, json };
}

const matches = (matcher, tool) => new RegExp(`^(?:${matcher})$`).test(tool);

// [command, matcher, payload file, expected answer]
const cases = [
  [claudeCmd, claudeHook.matcher, 'claude-bash-allow.json', 'allow'],
  [claudeCmd, claudeHook.matcher, 'claude-bash-hold.json', 'ask'],
  [claudeCmd, claudeHook.matcher, 'claude-bash-deny.json', 'deny'],
  // the deny rule of the same settings file, read through --claude-settings
  [claudeCmd, claudeHook.matcher, 'claude-read-env.json', 'deny'],
  // allowed but not known safe: no decision, Claude's own prompt applies
  [claudeCmd, claudeHook.matcher, 'claude-write-allow.json', 'silent'],
  [claudeCmd, claude.hooks.PermissionRequest[0].matcher, 'claude-permission-read.json', 'allow'],
  [claudeCmd, claude.hooks.PermissionRequest[0].matcher, 'claude-permission-hold.json', 'silent'],
  [claudeCmd, claude.hooks.PermissionRequest[0].matcher, 'claude-permission-deny.json', 'deny'],
  // --jail: an allowed shell call is rewritten to run in locus jail (the
  // one allow Codex's PreToolUse takes: with updatedInput)
  [codexCmd, codexMatcherOf('PreToolUse'), 'codex-bash-allow.json', 'allow'],
  // a hold Codex's PreToolUse cannot ask about is a deny with the reason
  [codexCmd, codexMatcherOf('PreToolUse'), 'codex-bash-hold.json', 'deny'],
  [codexCmd, codexMatcherOf('PreToolUse'), 'codex-bash-deny.json', 'deny'],
  [codexCmd, codexMatcherOf('PreToolUse'), 'codex-apply-patch.json', 'silent'],
  [codexCmd, codexMatcherOf('PermissionRequest'), 'codex-permission-read.json', 'allow'],
  [codexCmd, codexMatcherOf('PermissionRequest'), 'codex-permission-deny.json', 'deny'],
  [geminiCmd, gemini.hooks.BeforeTool[0].matcher, 'gemini-shell-allow.json', 'allow'],
  [geminiCmd, gemini.hooks.BeforeTool[0].matcher, 'gemini-shell-hold.json', 'ask'],
  [geminiCmd, gemini.hooks.BeforeTool[0].matcher, 'gemini-shell-deny.json', 'deny'],
  [geminiCmd, gemini.hooks.BeforeTool[0].matcher, 'gemini-write-file.json', 'none'],
];
check(codexMatcherOf('PreToolUse') === 'Bash|apply_patch|mcp__.*', 'codex matcher as documented',
  codexMatcherOf('PreToolUse'));

for (const [cmd, matcher, file, want] of cases) {
  const input = payload(file);
  const tool = JSON.parse(input).tool_name;
  check(matches(matcher, tool), `${file}: the snippet's matcher sends ${tool} to locus`, matcher);
  const r = runHook(cmd, input);
  let got;
  if (cmd === geminiCmd)
    got = r.json?.decision ?? (r.json && Object.keys(r.json).length === 0 ? 'none' : undefined);
  else if (r.stdout === '')
    got = 'silent';
  else
    got = r.json?.hookSpecificOutput?.permissionDecision ?? r.json?.hookSpecificOutput?.decision?.behavior;
  check(r.status === 0 && got === want, `${file}: ${want}`, `exit ${r.status}, got ${got}: ${r.stdout} ${r.stderr}`);
  if (file === 'codex-bash-allow.json')
    check(/ jail --root /.test(r.json?.hookSpecificOutput?.updatedInput?.command ?? ''),
      `${file}: the allow runs the line in locus jail`, r.stdout);
}

// malformed input through a snippet: blocked (exit 2, stderr says why)
for (const cmd of [claudeCmd, codexCmd, geminiCmd]) {
  const r = runHook(cmd, '{"tool_name": ');
  check(r.status === 2 && /blocked/.test(r.stderr), `${cmd}: malformed input is blocked`, `${r.status} ${r.stderr}`);
}

// no locus on PATH: the guard blocks (exit 2 and a reason), it never lets
// the call through as a failed hook would
const noLocus = { ...env, PATH: '/usr/bin:/bin' };
for (const cmd of [claudeCmd, codexCmd, geminiCmd]) {
  const r = spawnSync('sh', ['-c', cmd], { cwd: project, env: noLocus, input: payload('claude-bash-allow.json'),
    encoding: 'utf8', timeout: 60000 });
  check(r.status === 2 && /not installed/.test(r.stderr), `${cmd}: a missing locus blocks`, `${r.status} ${r.stderr}`);
}

fs.rmSync(project, { recursive: true, force: true });
fs.rmSync(home, { recursive: true, force: true });
done();
