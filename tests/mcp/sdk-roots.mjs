// tests/mcp/sdk-roots.mjs - `locus mcp` and the client's roots, driven by
// the official client (@modelcontextprotocol/sdk): without --root the first
// root is the workspace, roots/list_changed moves it, a broad root (/ or the
// home folder) is refused unless --allow-broad-root.  HOME is a temporary
// folder, so nothing here touches the real home.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { check, done, requirePackages, tempDir, locusBin } from './lib.mjs';

requirePackages('@modelcontextprotocol/sdk');
const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
const { ListRootsRequestSchema, ToolListChangedNotificationSchema } =
  await import('@modelcontextprotocol/sdk/types.js');

const text = (r) => (r.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const home = tempDir('home');
const cwd = tempDir('cwd');
const w1 = tempDir('root1');
const w2 = tempDir('root 2%'); // a space and a percent sign, percent-encoded in the URI
const uri = (p) => 'file://' + p.split('/').map(encodeURIComponent).join('/');
const env = { ...process.env, HOME: home };

async function withRoots() {
  let roots = [{ uri: uri(w1), name: 'first' }, { uri: uri(w2), name: 'second' }];
  let asked = 0, changed = 0;
  const client = new Client({ name: 'locus-roots-test', version: '1.0.0' },
    { capabilities: { roots: { listChanged: true } } });
  client.setRequestHandler(ListRootsRequestSchema, async () => { asked++; return { roots }; });
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => { changed++; });
  const transport = new StdioClientTransport({
    command: locusBin, args: ['mcp', '--backend', 'local', '--preset', 'standard'], cwd, env, stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d; });
  await client.connect(transport);
  let r = await client.callTool({ name: 'write', arguments: { path: 'a.txt', content: 'one' } });
  check(!r.isError, 'a write with roots', text(r));
  check(asked >= 1, 'the server asked roots/list');
  check(fs.existsSync(path.join(w1, 'a.txt')) && !fs.existsSync(path.join(cwd, 'a.txt')),
    'the first root is the workspace, not the current folder', stderr);
  for (let i = 0; i < 50 && !changed; i++) await sleep(20);
  check(changed >= 1, 'notifications/tools/list_changed after the switch');

  // the roots change: the next call runs in the new first root
  roots = [{ uri: uri(w2), name: 'second' }];
  await client.sendRootsListChanged();
  r = await client.callTool({ name: 'write', arguments: { path: 'b.txt', content: 'two' } });
  check(!r.isError && fs.existsSync(path.join(w2, 'b.txt')), 'roots/list_changed moves the workspace',
    text(r) + stderr);

  // a broad root is refused: the workspace stays
  roots = [{ uri: uri(home), name: 'home' }];
  await client.sendRootsListChanged();
  r = await client.callTool({ name: 'write', arguments: { path: 'c.txt', content: 'three' } });
  check(!r.isError && fs.existsSync(path.join(w2, 'c.txt')) && !fs.existsSync(path.join(home, 'c.txt')),
    'the home folder as a root is refused', text(r));
  for (let i = 0; i < 100 && !/home folder: refused/.test(stderr); i++) await sleep(20);
  check(/home folder: refused/.test(stderr), 'and the refusal is logged', stderr);
  await client.close();
}

// a client without roots, started in the home folder: no workspace
async function noRootsInHome() {
  const client = new Client({ name: 'locus-roots-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: locusBin, args: ['mcp', '--backend', 'local'], cwd: home, env, stderr: 'pipe',
  });
  await client.connect(transport);
  const r = await client.callTool({ name: 'write', arguments: { path: 'x.txt', content: 'x' } });
  check(r.isError && /home folder/.test(text(r)) && !fs.existsSync(path.join(home, 'x.txt')),
    'started in the home folder without --root: calls fail, nothing written', text(r));
  await client.close();
}

function rootFlag() {
  const run = (args) => spawnSync(locusBin, ['mcp', '--backend', 'local', ...args], { input: '', env, timeout: 20000, encoding: 'utf8' });
  let r = run(['--root', '/']);
  check(r.status === 2 && /--allow-broad-root/.test(r.stderr), '--root / is refused', `${r.status} ${r.stderr}`);
  r = run(['--root', home]);
  check(r.status === 2, '--root of the home folder is refused', `${r.status} ${r.stderr}`);
  r = run(['--root', home, '--allow-broad-root']);
  check(r.status === 0, '--allow-broad-root accepts it', `${r.status} ${r.stderr}`);
}

try {
  rootFlag();
  await withRoots();
  await noRootsInHome();
} catch (e) {
  check(false, 'the client session', e && e.stack ? e.stack : String(e));
}
for (const d of [home, cwd, w1, w2]) fs.rmSync(d, { recursive: true, force: true });
done();
