// tests/mcp/sdk-client.mjs - `locus mcp` driven by the official MCP client
// library (@modelcontextprotocol/sdk: Client + StdioClientTransport), started
// with the docs' mcpServers snippet (docs/integrations.md).
import fs from 'node:fs';
import path from 'node:path';
import { check, done, requirePackages, tempDir, sandboxWorkspace, envWithLocus, mcpServerEntry } from './lib.mjs';

requirePackages('@modelcontextprotocol/sdk');
const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');

const entry = mcpServerEntry();
const work = sandboxWorkspace('sdk');
const settings = path.join(tempDir('cfg'), 'settings.json');
// project rules, as a Claude Code settings.json would hold them
fs.writeFileSync(settings, JSON.stringify({
  permissions: { deny: ['Bash(touch:*)', 'Write(./secret/**)'] },
}));

const transport = new StdioClientTransport({
  command: entry.command,
  args: [...entry.args, '--claude-settings', settings],
  cwd: work,
  env: envWithLocus(),
  stderr: 'pipe',
});
let stderr = '';
transport.stderr?.on('data', (d) => { stderr += d; });
const client = new Client({ name: 'locus-test', version: '1.0.0' });

const text = (r) => (r.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('');

async function main() {
  await client.connect(transport);
  const info = client.getServerVersion();
  check(info && info.name === 'locus', 'serverInfo.name is locus', JSON.stringify(info));
  check(/Workspace/.test(client.getInstructions() || ''), 'instructions carry the prompt fragment');
  check(client.getServerCapabilities()?.tools !== undefined, 'capabilities.tools declared');

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const n of ['read', 'write', 'edit', 'bash', 'ls', 'glob', 'grep'])
    check(names.includes(n), `tools/list has ${n}`, names.join(','));
  check(tools.every((t) => t.inputSchema && t.inputSchema.type === 'object' && t.description),
    'every tool has a description and an object inputSchema');

  await client.ping();
  check(true, 'ping answered');

  // write, then read it back (on disk too)
  let r = await client.callTool({ name: 'write', arguments: { path: 'notes.txt', content: 'hello from the sdk\n' } });
  check(!r.isError, 'write a new file', text(r));
  check(fs.existsSync(path.join(work, 'notes.txt')) &&
        fs.readFileSync(path.join(work, 'notes.txt'), 'utf8') === 'hello from the sdk\n',
        'the file is on disk with its content');
  r = await client.callTool({ name: 'read', arguments: { path: 'notes.txt' } });
  check(!r.isError && /1\thello from the sdk/.test(text(r)), 'read it back', text(r));
  r = await client.callTool({ name: 'edit', arguments: { path: 'notes.txt', old: 'sdk', new: 'client' } });
  check(!r.isError && fs.readFileSync(path.join(work, 'notes.txt'), 'utf8') === 'hello from the client\n',
        'edit it (read first)', text(r));

  // an allowed command runs
  r = await client.callTool({ name: 'bash', arguments: { command: 'echo ran > ran.txt && cat notes.txt' } });
  check(!r.isError && /hello from the client/.test(text(r)), 'allowed command runs', text(r));
  check(fs.existsSync(path.join(work, 'ran.txt')), 'its side effect happened');

  // refused by a deny rule: isError, refusal JSON, nothing ran
  r = await client.callTool({ name: 'bash', arguments: { command: 'touch denied.txt' } });
  let refusal = null;
  try { refusal = JSON.parse(text(r)); } catch { /* checked below */ }
  check(r.isError === true, 'denied command is isError', JSON.stringify(r));
  check(refusal && refusal.status === 'denied' && refusal.outcome === 'deny' &&
        refusal.action === 'bash' && typeof refusal.reason === 'string',
        'its text is the refusal JSON (denied)', text(r));
  check(!fs.existsSync(path.join(work, 'denied.txt')), 'the denied command did not run');

  // held for a person: refused too (nobody to ask over MCP)
  r = await client.callTool({ name: 'bash', arguments: { command: 'echo x > held.txt && git push origin main' } });
  refusal = null;
  try { refusal = JSON.parse(text(r)); } catch { /* checked below */ }
  check(r.isError === true && refusal && refusal.status === 'held_for_approval' &&
        refusal.outcome === 'require_human', 'held command is isError with held_for_approval', text(r));
  check(!fs.existsSync(path.join(work, 'held.txt')), 'the held command did not run');

  // a write the rules deny
  r = await client.callTool({ name: 'write', arguments: { path: 'secret/key.txt', content: 'k' } });
  check(r.isError === true && /"status":"denied"/.test(text(r)), 'denied write is isError', text(r));
  check(!fs.existsSync(path.join(work, 'secret', 'key.txt')), 'the denied write wrote nothing');

  // a tool failure (not a refusal) is isError with the tool's message
  r = await client.callTool({ name: 'read', arguments: { path: 'missing.txt' } });
  check(r.isError === true && !/"status"/.test(text(r)), 'a failing tool is isError with its message', text(r));

  // arguments that do not fit are a tool error the model sees (SEP-1303)
  for (const [what, call, re] of [
    ['a wrong type', { name: 'bash', arguments: { command: 5 } }, /'command' must be a string, not a number/],
    ['a missing argument', { name: 'read', arguments: {} }, /missing required argument 'path'/],
    ['an unknown argument', { name: 'read', arguments: { path: 'notes.txt', lines: 3 } }, /unknown argument 'lines'/],
    ['a value outside the enum', { name: 'bash', arguments: { command: 'true', on_timeout: 'never' } },
      /'on_timeout' must be one of/],
  ]) {
    r = await client.callTool(call);
    check(r.isError === true && re.test(text(r)), `${what} is isError naming the field`, text(r));
  }
  // an unknown tool stays a protocol error
  try {
    await client.callTool({ name: 'no_such_tool', arguments: {} });
    check(false, 'unknown tool is -32602', 'no error');
  } catch (e) {
    check(e.code === -32602, 'unknown tool is -32602', `${e.code} ${e.message}`);
  }
  try {
    await client.request({ method: 'resources/list', params: {} },
      (await import('@modelcontextprotocol/sdk/types.js')).ListResourcesResultSchema);
    check(false, 'unknown method is -32601', 'no error');
  } catch (e) {
    check(e.code === -32601, 'unknown method is -32601', `${e.code} ${e.message}`);
  }
  await client.close();
  check(/serving \d+ tools/.test(stderr), 'logs went to stderr', stderr);
}

try {
  await main();
} catch (e) {
  check(false, 'the client session', e && e.stack ? e.stack : String(e));
}
fs.rmSync(work, { recursive: true, force: true });
fs.rmSync(path.dirname(settings), { recursive: true, force: true });
done();
