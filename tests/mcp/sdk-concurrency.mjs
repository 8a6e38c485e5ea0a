// tests/mcp/sdk-concurrency.mjs - `locus mcp` under the official client
// (@modelcontextprotocol/sdk) beyond one call at a time: a ping answered
// while a long bash runs, cancellation (AbortSignal -> notifications/
// cancelled) killing the command's process group, progress notifications,
// tool annotations and schemas (Ajv strict), structured results, the
// timeout->background rule under `standard`, a 1 MiB write_stdin, and no
// process left alive once the client closes.  Every wait is for an event,
// bounded by a hang guard; no duration is asserted.
import fs from 'node:fs';
import path from 'node:path';
import { check, done, requirePackages, tempDir, locusBin } from './lib.mjs';

requirePackages('@modelcontextprotocol/sdk', 'ajv');
const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
const Ajv = (await import('ajv')).default;

const text = (r) => (r.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const alive = (pid) => {
  try { process.kill(pid, 0); } catch { return false; }
  try { return !/^\S+ \(.*\) [ZX]/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')); } catch { return false; }
};
// Poll pred until it holds; the deadline is a hang guard only (a loaded
// machine takes its time), never a measure of speed.
const HANG_GUARD_MS = 60000;
const until = async (pred) => {
  const end = Date.now() + HANG_GUARD_MS;
  while (Date.now() < end && !pred()) await sleep(20);
  return pred();
};
// live processes whose process group is pgid
const group = (pgid) => fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((d) => {
  try {
    const st = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
    const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
    return f[0] !== 'Z' && f[0] !== 'X' && Number(f[2]) === pgid;
  } catch { return false; }
}).map(Number);
const pidIn = (work, f) => { try { return Number(fs.readFileSync(path.join(work, f), 'utf8')); } catch { return 0; } };

async function open(preset, work) {
  const transport = new StdioClientTransport({
    command: locusBin, args: ['mcp', '--backend', 'local', '--root', work, '--preset', preset], cwd: work, stderr: 'pipe',
  });
  const client = new Client({ name: 'locus-concurrency-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function standard() {
  const work = tempDir('conc');
  const client = await open('standard', work);

  // annotations, titles, schemas that compile under Ajv strict mode
  const { tools } = await client.listTools();
  const ajv = new Ajv({ strict: true, allErrors: true });
  for (const t of tools) {
    const a = t.annotations || {};
    check(typeof t.title === 'string' && ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']
      .every((k) => typeof a[k] === 'boolean'), `${t.name} has a title and the four hints`, JSON.stringify(t));
    let ok = true, why = '';
    try { ajv.compile(t.inputSchema); if (t.outputSchema) ajv.compile(t.outputSchema); } catch (e) { ok = false; why = e.message; }
    check(ok, `${t.name} schemas compile under Ajv strict`, why);
  }
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  check(byName.read.annotations.readOnlyHint && !byName.read.annotations.openWorldHint, 'read is read-only, closed world');
  check(!byName.bash.annotations.readOnlyHint && byName.bash.annotations.destructiveHint &&
    byName.bash.annotations.openWorldHint, 'bash on the host shell is destructive and open world');
  check(byName.write.annotations.idempotentHint && byName.write.annotations.destructiveHint, 'write is idempotent, destructive');
  for (const n of ['todo_read', 'ls', 'glob', 'grep'])
    check(byName[n].outputSchema !== undefined, `${n} has an outputSchema`);

  // structured results (the SDK validates them against outputSchema)
  await client.callTool({ name: 'todo_write', arguments: { todos: [{ content: 'x', status: 'pending' }] } });
  let r = await client.callTool({ name: 'todo_read', arguments: {} });
  check(!r.isError && r.structuredContent && r.structuredContent.todos[0].content === 'x',
    'todo_read gives structuredContent', JSON.stringify(r));
  fs.mkdirSync(path.join(work, 'src'));
  fs.writeFileSync(path.join(work, 'src', 'a.txt'), 'one\ntwo\n');
  r = await client.callTool({ name: 'ls', arguments: {} });
  check(!r.isError && r.structuredContent?.entries?.some((e) => e.path === 'src/a.txt' && e.type === 'file') &&
    r.structuredContent.entries.some((e) => e.path === 'src' && e.type === 'dir'), 'ls gives entries', JSON.stringify(r.structuredContent));
  r = await client.callTool({ name: 'glob', arguments: { pattern: '**/*.txt' } });
  check(!r.isError && JSON.stringify(r.structuredContent?.files) === '["src/a.txt"]', 'glob gives files',
    JSON.stringify(r.structuredContent));
  r = await client.callTool({ name: 'grep', arguments: { pattern: 'tw' } });
  const m = r.structuredContent?.matches || [];
  check(!r.isError && m.length === 1 && m[0].path === 'src/a.txt' && m[0].line === 2 && m[0].text === 'two',
    'grep gives matches', JSON.stringify(r.structuredContent));
  r = await client.callTool({ name: 'grep', arguments: { pattern: 'o', output_mode: 'count' } });
  check(!r.isError && r.structuredContent?.counts?.[0]?.count === 2, 'grep count gives counts', JSON.stringify(r.structuredContent));
  r = await client.callTool({ name: 'bash', arguments: { command: 'rm -rf /' } });
  check(r.isError && r.structuredContent && r.structuredContent.status === 'denied' &&
    r.structuredContent.outcome === 'deny', 'a refusal carries the refusal JSON as structuredContent', JSON.stringify(r));

  // a ping and tools/list while a bash call runs: answered before it ends.
  // The bash call waits for a file only this script creates, after both
  // answers came: an order, not a time, so a busy machine cannot fail it.
  const release = path.join(work, 'release-the-bash');
  let longDone = false;
  const long = client.callTool({ name: 'bash', arguments: {
    command: "timeout 20 sh -c 'until [ -e release-the-bash ]; do sleep 0.05; done'; echo slept" } },
  undefined, { timeout: 60000 }).then((v) => { longDone = true; return v; });
  await client.ping();
  check(!longDone, 'ping answered while a bash call runs');
  await client.listTools();
  check(!longDone, 'tools/list answered while it runs');
  fs.writeFileSync(release, '');
  r = await long;
  check(!r.isError && /slept/.test(text(r)), 'the long bash finishes', text(r));
  fs.rmSync(release, { force: true });

  // progress: a 3 s command sends notifications/progress about once a second
  const seen = [];
  r = await client.callTool({ name: 'bash', arguments: { command: 'echo begin; sleep 3; echo end' } }, undefined,
    { onprogress: (p) => seen.push(p), timeout: 20000 });
  check(!r.isError, 'the command with a progress token runs', text(r));
  // lower bounds only (load makes a 3 s command longer, never shorter): two
  // or more, none before the first second, whole seconds that grow (so at
  // most one a second)
  check(seen.length >= 2 && seen[0].progress >= 1, `progress notifications arrive (${seen.length})`, JSON.stringify(seen));
  check(seen.every((p, i) => i === 0 || p.progress > seen[i - 1].progress), 'progress grows', JSON.stringify(seen));
  check(seen.some((p) => /bytes of output/.test(p.message || '')), 'progress says the output so far', JSON.stringify(seen));

  // cancellation: the command's process group is killed
  const ac = new AbortController();
  const cancelled = client.callTool({ name: 'bash',
    arguments: { command: 'echo $$ > pid.txt; sleep 60 | cat; echo never' } },
    undefined, { signal: ac.signal, timeout: 20000 });
  await until(() => pidIn(work, 'pid.txt') > 0);
  const pid = pidIn(work, 'pid.txt');
  await until(() => group(pid).length >= 3);
  const members = group(pid);
  check(members.length >= 3, 'the command runs as a group (sh, sleep, cat)', JSON.stringify(members));
  ac.abort('test');
  let threw = false;
  try { await cancelled; } catch { threw = true; }
  check(threw, 'the cancelled call rejects on the client');
  check(pid > 0 && await until(() => group(pid).length === 0),
    'cancellation kills the process group (no member left)', JSON.stringify(group(pid)));
  await client.ping();
  check(true, 'the server goes on after a cancellation');

  // (6) a timeout never makes a background job under `standard`
  r = await client.callTool({ name: 'bash', arguments: { command: 'echo $$ > t.txt; exec sleep 60', timeout: 1 } },
    undefined, { timeout: 20000 });
  const tpid = pidIn(work, 't.txt');
  check(r.isError && /killed/.test(text(r)) && /exec:background/.test(text(r)),
    'a command outliving its timeout is killed under standard', text(r));
  check(tpid > 0 && await until(() => !alive(tpid)), 'and no process of it is left alive', `${tpid}`);
  check(!/background=true and read/.test(client.getInstructions() || ''),
    'the instructions do not advise background under standard', client.getInstructions());

  await client.close();
  fs.rmSync(work, { recursive: true, force: true });
}

async function permissive() {
  const work = tempDir('conc');
  const client = await open('permissive', work);
  // a 1 MiB write_stdin neither hangs nor blocks a ping
  let r = await client.callTool({ name: 'bash', arguments: { command: 'wc -c', background: true } });
  const h = (text(r).match(/sh\d+/) || [])[0];
  check(!r.isError && h, 'a background reader starts', text(r));
  const big = 'x'.repeat(1 << 20);
  const w = client.callTool({ name: 'write_stdin', arguments: { handle: h, text: big, close: true } },
    undefined, { timeout: 20000 });
  await client.ping();
  check(true, 'ping answered during a 1 MiB write_stdin');
  r = await w;
  check(!r.isError, 'the 1 MiB write_stdin completes', text(r).slice(0, 200));
  let o = '';
  for (const end = Date.now() + HANG_GUARD_MS; Date.now() < end && !/exited/.test(o);) {
    o = text(await client.callTool({ name: 'bash_output', arguments: { handle: h, since: 0 } }));
    if (!/exited/.test(o)) await sleep(50);
  }
  check(/1048576/.test(o), 'the reader got every byte', o.slice(0, 200));

  // a 1 MiB write_stdin to a command that never reads: bounded, pings go on
  r = await client.callTool({ name: 'bash', arguments: { command: 'exec sleep 300', background: true } });
  const deaf = (text(r).match(/sh\d+/) || [])[0];
  // the ping must come back while the write is still stuck (an order, not
  // a time: the write only returns at its deadline)
  let w2Done = false;
  const w2 = client.callTool({ name: 'write_stdin', arguments: { handle: deaf, text: big } },
    undefined, { timeout: 60000 }).then((v) => { w2Done = true; return v; });
  await client.ping();
  check(!w2Done, 'ping answered while a write_stdin is stuck');
  r = await w2;
  check(r.isError && /is not reading its stdin/.test(text(r)),
    'a write_stdin nobody reads returns at its deadline', text(r).slice(0, 200));
  await client.callTool({ name: 'kill_shell', arguments: { handle: deaf } });

  // a cancelled command takes its setsid escapee along
  const ac = new AbortController();
  const esc = client.callTool({ name: 'bash',
    arguments: { command: 'setsid sleep 300 & echo $! > esc.txt; wait' } },
    undefined, { signal: ac.signal, timeout: 20000 }).catch(() => null);
  await until(() => pidIn(work, 'esc.txt') > 0);
  const escPid = pidIn(work, 'esc.txt');
  check(escPid > 0 && alive(escPid), 'the setsid escapee runs');
  ac.abort('test');
  await esc;
  check(await until(() => !alive(escPid)), 'cancellation kills the setsid escapee too', `${escPid}`);

  // closing the client ends every job the server started
  r = await client.callTool({ name: 'bash', arguments: { command: 'echo $$ > bg.txt; exec sleep 300', background: true } });
  check(!r.isError, 'a background job starts', text(r));
  r = await client.callTool({ name: 'bash',
    arguments: { command: 'setsid sleep 300 & echo $! > bgesc.txt; wait', background: true } });
  check(!r.isError, 'a background job with a setsid child starts', text(r));
  const running = client.callTool({ name: 'bash', arguments: { command: 'echo $$ > fg.txt; exec sleep 300' } },
    undefined, { timeout: 20000 }).catch(() => null);
  await until(() => pidIn(work, 'bg.txt') > 0 && pidIn(work, 'fg.txt') > 0);
  await until(() => pidIn(work, 'bgesc.txt') > 0);
  const bg = pidIn(work, 'bg.txt'), fg = pidIn(work, 'fg.txt'), bgesc = pidIn(work, 'bgesc.txt');
  check(alive(bg) && alive(fg) && alive(bgesc), 'all run before the close');
  // The server ends by itself when its stdin closes (what a client's close
  // does first): its exit is waited for as an event, before the SDK's
  // close, whose timer would otherwise send SIGTERM on a slow machine.
  const server = client.transport._process;
  const exited = new Promise((resolve) => {
    if (server.exitCode !== null || server.signalCode !== null) resolve();
    else server.once('exit', () => resolve());
  });
  server.stdin.end();
  await exited;
  check(server.exitCode === 0 && server.signalCode === null,
    'the server ended by itself when its client went away', `${server.exitCode} ${server.signalCode}`);
  await client.close();
  await running;
  check(await until(() => !alive(bg) && !alive(fg) && !alive(bgesc)),
    'after close no job is left alive (setsid children included)', `${bg} ${fg} ${bgesc}`);
  fs.rmSync(work, { recursive: true, force: true });
}

try {
  await standard();
  await permissive();
} catch (e) {
  check(false, 'the client session', e && e.stack ? e.stack : String(e));
}
done();
