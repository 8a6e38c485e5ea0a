// tests/mcp/inspector.mjs - `locus mcp` driven by the official MCP Inspector
// in CLI mode (@modelcontextprotocol/inspector --cli), started from the
// docs' mcpServers snippet (docs/integrations.md) with --config/--server.
// Each inspector run starts its own server, as a one-shot client does.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { check, done, requirePackages, tempDir, sandboxWorkspace, envWithLocus, snippet, sourceRoot, mcpServerEntry } from './lib.mjs';

requirePackages('@modelcontextprotocol/inspector');
const inspector = path.join(sourceRoot, 'node_modules', '@modelcontextprotocol', 'inspector',
  JSON.parse(fs.readFileSync(path.join(sourceRoot, 'node_modules', '@modelcontextprotocol',
    'inspector', 'package.json'), 'utf8')).bin['mcp-inspector']);

const work = sandboxWorkspace('insp');
const home = tempDir('insp-home');
const cfgDir = tempDir('insp-cfg');
const config = path.join(cfgDir, 'mcp.json');
fs.writeFileSync(config, snippet('mcp-servers'));
const env = {
  ...envWithLocus(),
  HOME: home, // the inspector keeps a catalog and client config there
  MCP_INSPECTOR_SECRET_STORE: 'memory',
};

function inspect(args) {
  const r = spawnSync(process.execPath, [inspector, '--cli', ...args, '--format', 'json'], {
    cwd: work, env, encoding: 'utf8', timeout: 90000,
  });
  let out = null;
  try { out = JSON.parse(r.stdout); } catch { /* checked by callers */ }
  return { status: r.status, out, stdout: r.stdout, stderr: r.stderr };
}
const viaDocs = (...a) => inspect(['--config', config, '--server', 'locus', ...a]);
const toolText = (r) => (r.out?.result?.content || []).map((c) => c.text).join('');
const call = (tool, args, run = viaDocs) =>
  run('--method', 'tools/call', '--tool-name', tool, '--tool-args-json', JSON.stringify(args));

let r = viaDocs('--method', 'tools/list');
const names = (r.out?.result?.tools || []).map((t) => t.name);
check(r.status === 0, 'tools/list exits 0', `${r.status} ${r.stderr}`);
for (const n of ['read', 'write', 'edit', 'bash'])
  check(names.includes(n), `tools/list has ${n}`, names.join(','));

// the inspector's schema portability lint (--strict: exit 6 on a finding)
r = viaDocs('--method', 'tools/list', '--strict');
check(r.status === 0 && !r.out?.schemaFindings, 'tools/list passes the inspector --strict schema lint',
  `${r.status} ${JSON.stringify(r.out?.schemaFindings)} ${r.stderr}`);
const listed = r.out?.result?.tools || [];
check(listed.length > 0 && listed.every((t) => t.title && t.annotations &&
  typeof t.annotations.readOnlyHint === 'boolean' && typeof t.annotations.openWorldHint === 'boolean'),
  'every tool has a title and annotations', JSON.stringify(listed.map((t) => [t.name, t.annotations])));

// arguments that do not fit: a tool error the model sees (exit 5), naming the field
r = call('read', { path: 'hello.txt', offset: 'x', nope: 1 });
check(r.status === 5 && r.out?.result?.isError === true && /'(offset|nope)'/.test(toolText(r)),
  'a bad argument is isError naming the field', `${r.status} ${r.stdout}`);

r = call('write', { path: 'hello.txt', content: 'written by the inspector\n' });
check(r.status === 0 && r.out?.result?.isError === false, 'write a file', `${r.status} ${r.stdout} ${r.stderr}`);
check(fs.existsSync(path.join(work, 'hello.txt')) &&
      fs.readFileSync(path.join(work, 'hello.txt'), 'utf8') === 'written by the inspector\n',
      'the file is on disk');

r = call('read', { path: 'hello.txt' });
check(r.status === 0 && /1\twritten by the inspector/.test(toolText(r)), 'read it back', r.stdout);

r = call('bash', { command: 'echo ran > ran.txt && ls' });
check(r.status === 0 && r.out?.result?.isError === false && /hello\.txt/.test(toolText(r)),
  'allowed command runs', `${r.status} ${r.stdout}`);
check(fs.existsSync(path.join(work, 'ran.txt')), 'its side effect happened');

// held for a person under the docs' policy: refused, isError (exit 5)
r = call('bash', { command: 'echo x > held.txt && git push origin main' });
let refusal = null;
try { refusal = JSON.parse(toolText(r)); } catch { /* checked below */ }
check(r.status === 5 && r.out?.result?.isError === true, 'held command: isError, inspector exit 5',
  `${r.status} ${r.stdout} ${r.stderr}`);
check(refusal?.status === 'held_for_approval' && refusal?.outcome === 'require_human',
  'its text is the refusal JSON (held_for_approval)', toolText(r));
check(/tool_is_error/.test(r.stderr), 'the inspector reports tool_is_error', r.stderr);
check(!fs.existsSync(path.join(work, 'held.txt')), 'the held command did not run');

// denied by a project rule: the same server, started ad hoc with the rules
const settings = path.join(cfgDir, 'settings.json');
fs.writeFileSync(settings, JSON.stringify({ permissions: { deny: ['Bash(touch:*)'] } }));
const entry = mcpServerEntry();
const adHoc = (...a) => inspect([entry.command, ...entry.args, '--claude-settings', settings, ...a]);
r = call('bash', { command: 'touch denied.txt' }, adHoc);
refusal = null;
try { refusal = JSON.parse(toolText(r)); } catch { /* checked below */ }
check(r.status === 5 && refusal?.status === 'denied' && refusal?.outcome === 'deny' &&
      refusal?.action === 'bash', 'denied command: isError with the refusal JSON', `${r.status} ${r.stdout}`);
check(!fs.existsSync(path.join(work, 'denied.txt')), 'the denied command did not run');

// unknown tool: a JSON-RPC error, not a result
r = call('no_such_tool', {});
check(r.status !== 0 && r.out?.result === undefined, 'unknown tool is an error', `${r.status} ${r.stdout} ${r.stderr}`);

fs.rmSync(work, { recursive: true, force: true });
fs.rmSync(home, { recursive: true, force: true });
fs.rmSync(cfgDir, { recursive: true, force: true });
done();
