// tests/mcp/protocol.mjs - `locus mcp` at the wire: JSON-RPC edge cases the
// official clients never send (needs only node).  All requests go in one
// stream; notifications must get no answer.  Tool calls run on a worker and
// may be answered after later pings, so answers are matched by id (those
// with id null in order), and tool-call answers must keep the calls' order.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { check, done, locusBin, cannotRun } from './lib.mjs';

if (!locusBin) cannotRun('LOCUS_BIN is not set');

const J = (o) => JSON.stringify(o);
const req = (id, method, params) => J(params === undefined
  ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
const note = (method, params) => J({ jsonrpc: '2.0', method, params });

// [line, expectation or null for "no answer"]
const cases = [
  [req(1, 'initialize', { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 't', version: '1' } }),
    (a) => a.id === 1 && a.result.protocolVersion === '2024-11-05' && a.result.serverInfo.name === 'locus' &&
      a.result.capabilities.tools !== undefined && typeof a.result.instructions === 'string'],
  [note('notifications/initialized'), null],
  [req(2, 'initialize', { protocolVersion: '1999-01-01', capabilities: {} }),
    (a) => a.id === 2 && a.result.protocolVersion === '2025-11-25'],
  [req(3, 'initialize'), (a) => a.id === 3 && a.result.protocolVersion === '2025-11-25'],
  [req(4, 'initialize', { protocolVersion: '2025-06-18' }), (a) => a.result.protocolVersion === '2025-06-18'],
  [req(5, 'initialize', { protocolVersion: '2025-03-26' }), (a) => a.result.protocolVersion === '2025-03-26'],
  [note('notifications/whatever', { x: 1 }), null],
  [J({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'write', arguments: { path: 'n.txt', content: 'x' } } }), null],
  [note('notifications/cancelled', 'not even an object'), null],
  [req('abc', 'ping'), (a) => a.id === 'abc' && J(a.result) === '{}'],
  [req(0, 'ping'), (a) => a.id === 0 && J(a.result) === '{}'],
  [req(-7, 'ping', {}), (a) => a.id === -7],
  [req(9007199254740991, 'ping'), (a) => a.id === 9007199254740991],
  [req('', 'ping'), (a) => a.id === ''],
  [req(6, 'tools/list'), (a) => a.id === 6 && Array.isArray(a.result.tools) && a.result.tools.length > 0],
  [req(7, 'tools/list', {}), (a) => a.id === 7 && Array.isArray(a.result.tools)],
  [req(8, 'tools/list', []), (a) => a.id === 8 && a.error.code === -32602],
  [req(9, 'resources/list', {}), (a) => a.id === 9 && a.error.code === -32601],
  [req('m', 'no/such/method'), (a) => a.id === 'm' && a.error.code === -32601],
  ['garbage', (a) => a.id === null && a.error.code === -32700],
  ['{"jsonrpc":"2.0","id":1,"method":"ping"', (a) => a.id === null && a.error.code === -32700],
  ['{"jsonrpc":"2.0","id":1,"method":"ping"} trailing', (a) => a.id === null && a.error.code === -32700],
  ['{"jsonrpc":"2.0","id":1,\u0000"method":"ping"}', (a) => a.id === null && a.error.code === -32700],
  ['\u00ff\u00fe\u0001binary', (a) => a.id === null && a.error.code === -32700],
  ['', null],
  ['   ', null],
  ['[]', (a) => a.id === null && a.error.code === -32600],
  [`[${req(10, 'ping')}]`, (a) => a.id === null && a.error.code === -32600],
  ['42', (a) => a.id === null && a.error.code === -32600],
  ['"ping"', (a) => a.id === null && a.error.code === -32600],
  [J({ jsonrpc: '2.0', id: null, method: 'ping' }), (a) => a.id === null && a.error.code === -32600],
  [J({ jsonrpc: '2.0', id: { x: 1 }, method: 'ping' }), (a) => a.id === null && a.error.code === -32600],
  [J({ jsonrpc: '2.0', id: true, method: 'ping' }), (a) => a.id === null && a.error.code === -32600],
  [J({ jsonrpc: '1.0', id: 11, method: 'ping' }), (a) => a.id === 11 && a.error.code === -32600],
  [J({ id: 12, method: 'ping' }), (a) => a.id === 12 && a.error.code === -32600],
  [J({ jsonrpc: '2.0', id: 13, method: 5 }), (a) => a.id === 13 && a.error.code === -32600],
  ['{"jsonrpc":"2.0","id":14,"method":"ping","method":"tools/list"}', (a) => a.id === 14 && a.error.code === -32600],
  // two ids (one spelled with an escape): refused, and answered with id null
  ['{"jsonrpc":"2.0","\\u0069d":15,"id":16,"method":"ping"}', (a) => a.id === null && a.error.code === -32600],
  [J({ jsonrpc: '2.0', id: 15, result: {} }), null], // a response: ignored
  [J({ jsonrpc: '2.0', id: 16, error: { code: 1, message: 'x' } }), null],
  [req(17, 'tools/call', { name: 'nope', arguments: {} }), (a) => a.id === 17 && a.error.code === -32602],
  [req(18, 'tools/call', { arguments: {} }), (a) => a.id === 18 && a.error.code === -32602],
  [req(19, 'tools/call', { name: 'read', arguments: 'x' }),
    (a) => a.id === 19 && a.result.isError === true && /'arguments' must be an object/.test(a.result.content[0].text)],
  [req(20, 'tools/call', { name: 'read', arguments: { path: 7 } }),
    (a) => a.id === 20 && a.result.isError === true && /'path' must be a string, not a number/.test(a.result.content[0].text)],
  [req(30, 'tools/call', { name: 'read', arguments: { path: 'a.txt', bogus: 1 } }),
    (a) => a.id === 30 && a.result.isError === true && /unknown argument 'bogus'/.test(a.result.content[0].text)],
  [req(31, 'tools/call', { name: 'read', arguments: {} }),
    (a) => a.id === 31 && a.result.isError === true && /missing required argument 'path'/.test(a.result.content[0].text)],
  [req(32, 'tools/call', { name: 'write', arguments: { path: 'z.txt', content: 'a\u0000b' } }),
    (a) => a.id === 32 && a.result.isError === true && /NUL/.test(a.result.content[0].text)],
  [req(33, 'tools/call', { name: 'write', arguments: { path: 'z\u0000.txt', content: 'x' } }),
    (a) => a.id === 33 && a.result.isError === true && /NUL/.test(a.result.content[0].text)],
  [req(34, 'tools/call', { name: 'read', arguments: { path: 'z.txt' } }),
    (a) => a.id === 34 && a.result.isError === true && /does not exist/.test(a.result.content[0].text)],
  [req(21, 'tools/call'), (a) => a.id === 21 && a.error.code === -32602],
  [req(22, 'tools/call', { name: 'write', arguments: { path: 'a.txt', content: 'caf\u00e9 \u{1F600}\n' } }),
    (a) => a.id === 22 && a.result.isError === false && a.result.content[0].type === 'text'],
  [req(23, 'tools/call', { name: 'read', arguments: { path: 'a.txt' } }),
    (a) => a.id === 23 && a.result.isError === false && a.result.content[0].text.includes('caf\u00e9 \u{1F600}')],
  [req(24, 'tools/call', { name: 'read', arguments: { path: 'missing.txt' } }),
    (a) => a.id === 24 && a.result.isError === true],
  [req(25, 'tools/call', { name: 'todo_read' }), (a) => a.id === 25 && a.result.isError === false],
  [req(26, 'tools/call', { name: 'todo_read', arguments: null }), (a) => a.id === 26 && a.result.isError === false],
  [req(27, 'tools/call', { name: 'write', arguments: { path: '../../etc/x', content: 'x' } }),
    (a) => a.id === 27 && a.result.isError === true],
  [req(28, 'ping', null), (a) => a.id === 28 && J(a.result) === '{}'],
  // the notification above that carried a tools/call did not run it
  [req(29, 'tools/call', { name: 'read', arguments: { path: 'n.txt' } }),
    (a) => a.id === 29 && a.result.isError === true],
  [req(1.5, 'ping'), (a) => a.id === 1.5],
  // hostile shapes: every one answered, none crashes the server
  ['{"jsonrpc":"2.0","\\u0069d":"esc","method":"ping"}', (a) => a.id === 'esc' && J(a.result) === '{}'],
  ['{"jsonrpc":"2.0","id":1e400,"method":"ping"}', (a) => a.id === null && a.error.code === -32600],
  // past a double's range: not a usable id
  [`{"jsonrpc":"2.0","id":${'9'.repeat(500)},"method":"ping"}`, (a) => a.id === null && a.error.code === -32600],
  [`{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"read","arguments":{"path":"a.txt","x":${'['.repeat(5000)}${']'.repeat(5000)}}}}`,
    (a) => a.error?.code === -32700 || a.result?.isError === true],
  [req('tok', 'tools/call', { name: 'todo_read', arguments: {}, _meta: { progressToken: { not: 'valid' } } }),
    (a) => a.id === 'tok' && a.result.isError === false],
  [note('notifications/cancelled', { requestId: { x: 1 } }), null],
  [note('notifications/cancelled', { requestId: 'nobody' }), null],
  [note('notifications/cancelled', {}), null],
  [req('bigarg', 'tools/call', { name: 'write', arguments: { path: 'big.txt', content: 'y'.repeat(1 << 20) } }),
    (a) => a.id === 'bigarg' && a.result.isError === false],
  // a lone surrogate escape is not JSON to cJSON: a parse error, nothing runs
  [req('badutf', 'tools/call', { name: 'write', arguments: { path: '\udc00x', content: 'x' } }),
    (a) => a.id === null && a.error.code === -32700],
];

// a line over the 16 MiB cap, then the server must still answer
const huge = `{"jsonrpc":"2.0","id":99,"method":"ping","pad":"${'a'.repeat(17 << 20)}"}`;
cases.push([huge, (a) => a.id === null && a.error.code === -32600]);
cases.push([req('after-huge', 'ping'), (a) => a.id === 'after-huge']);
// a last line without its newline at EOF is still served
const last = req('last', 'ping');

const child = spawn(locusBin, ['mcp', '--backend', 'memory'], { stdio: ['pipe', 'pipe', 'pipe'] });
let out = '', err = '';
child.stdout.setEncoding('utf8');
child.stdout.on('data', (d) => { out += d; });
child.stderr.on('data', (d) => { err += d; });
const input = cases.map(([l]) => l).join('\n') + '\n' + last;
child.stdin.on('error', () => {});
child.stdin.end(input);
const timer = setTimeout(() => child.kill('SIGKILL'), 120000);
const status = await new Promise((res) => child.on('close', (code, sig) => res(sig ? `signal ${sig}` : code)));
clearTimeout(timer);

check(status === 0, 'exit status 0 at EOF', `${status} ${err}`);
const lines = out.split('\n');
check(lines[lines.length - 1] === '', 'stdout ends with a newline');
lines.pop();
let answers = [];
let allJson = true;
for (const l of lines) {
  try { answers.push(JSON.parse(l)); } catch { allJson = false; }
}
check(allJson, 'every stdout line is one JSON message', out.slice(0, 300));
check(answers.every((a) => a.jsonrpc === '2.0'), 'every answer is JSON-RPC 2.0');
const expected = cases.filter(([, e]) => e !== null);
check(answers.length === expected.length + 1, `${expected.length + 1} answers (notifications unanswered)`,
  `${answers.length}`);
// pair each expectation with its answer: by id, or the next id-null one
const requestId = (line) => { try { return JSON.parse(line).id; } catch { return undefined; } };
const used = new Set();
const pick = (line) => {
  const want = requestId(line);
  const nullish = want === undefined || want === null || typeof want === 'object' || typeof want === 'boolean';
  for (let i = 0; i < answers.length; i++) {
    if (used.has(i)) continue;
    const a = answers[i];
    if (nullish ? a.id === null : a.id === want) {
      // a broken line with a usable id is answered with that id
      used.add(i);
      return a;
    }
  }
  // a broken request whose id is usable but the line is not JSON
  for (let i = 0; i < answers.length; i++)
    if (!used.has(i) && answers[i].id === null) { used.add(i); return answers[i]; }
  return undefined;
};
// the calls that reach the worker (the others are answered at once)
const callIds = [34, 22, 23, 24, 25, 26, 27, 29, 'tok', 'bigarg'];
const answeredCalls = answers.map((a) => a.id).filter((id) => callIds.includes(id));
check(JSON.stringify(answeredCalls) === JSON.stringify(callIds), 'tool calls are answered in the order sent',
  JSON.stringify(answeredCalls));
expected.forEach(([line, e]) => {
  const a = pick(line);
  let ok = false;
  try { ok = a !== undefined && e(a); } catch { ok = false; }
  // control bytes (a NUL case among them) shown escaped: the CI log stays text
  const shown = (line.length > 80 ? line.slice(0, 60) + '...' : line)
    .replace(/[\x00-\x1f\x7f]/g, (c) => '\\x' + c.charCodeAt(0).toString(16).padStart(2, '0'));
  check(ok, `answer to ${shown}`, J(a)?.slice(0, 300));
});
const a = answers.find((x) => x.id === 'last');
check(a && a.result !== undefined, 'a last line without newline is served', J(a));
check(/serving/.test(err), 'logs on stderr');

// A second session, on a real folder: before initialize, exact ids, a call
// cancelled while it runs (no answer for it, its process gone), a queued
// call cancelled before it starts (nothing ran), the in-flight bound.
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'locus-proto-'));
const raw = (s) => s; // lines sent as written (the big id must not be a JS number)
const lines2 = [
  req('p0', 'ping'),
  req('early', 'tools/list'),
  req(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {} }),
  note('notifications/initialized'),
  raw('{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}'),
  raw('{"jsonrpc":"2.0","id":-12345678901234567890,"method":"ping"}'),
  raw('{"jsonrpc":"2.0","id":1e3,"method":"ping"}'),
  req('run', 'tools/call', { name: 'bash', arguments: { command: 'echo $$ > pid.txt; exec sleep 300' } }),
  req('queued', 'tools/call', { name: 'write', arguments: { path: 'never.txt', content: 'x' } }),
  note('notifications/cancelled', { requestId: 'queued', reason: 'test' }),
  req('p1', 'ping'),
];
const child2 = spawn(locusBin, ['mcp', '--backend', 'local', '--root', work, '--preset', 'standard', '--max-calls', '2'],
  { stdio: ['pipe', 'pipe', 'pipe'] });
let out2 = '', err2 = '';
child2.stdout.setEncoding('utf8');
child2.stdout.on('data', (d) => { out2 += d; });
child2.stderr.on('data', (d) => { err2 += d; });
child2.stdin.on('error', () => {});
child2.stdin.write(lines2.join('\n') + '\n');
const waitFor = async (pred, ms) => {
  const end = Date.now() + ms;
  while (Date.now() < end && !pred()) await new Promise((r) => setTimeout(r, 20));
  return pred();
};
// an order, not a time: p1 is answered once the bash has started, and the
// bash (300 s, cancelled below) has not answered yet
await waitFor(() => out2.includes('"id":"p1"') && fs.existsSync(path.join(work, 'pid.txt')), 60000);
check(out2.includes('"id":"p1"') && fs.existsSync(path.join(work, 'pid.txt')) && !out2.includes('"id":"run"'),
  'pings answered while a 300 s bash runs', out2.slice(-400));
// two in flight (run + one more): a third is busy
child2.stdin.write(req('q1', 'tools/call', { name: 'todo_read' }) + '\n' +
  req('q2', 'tools/call', { name: 'todo_read' }) + '\n');
await waitFor(() => out2.includes('"id":"q2"'), 30000);
const pid = Number(fs.readFileSync(path.join(work, 'pid.txt'), 'utf8'));
child2.stdin.write(note('notifications/cancelled', { requestId: 'run' }) + '\n');
const gone = await waitFor(() => { try { process.kill(pid, 0); return false; } catch { return true; } }, 30000);
check(gone, 'a cancelled bash has its process killed', `pid ${pid}`);
child2.stdin.end();
const status2 = await new Promise((res) => child2.on('close', (code, sig) => res(sig ? `signal ${sig}` : code)));
check(status2 === 0, 'second session exits 0', `${status2} ${err2}`);
const got = out2.split('\n').filter((l) => l).map((l) => { try { return [l, JSON.parse(l)]; } catch { return [l, null]; } });
const by = (id) => got.find(([, m]) => m && m.id === id);
check(by('p0') && J(by('p0')[1].result) === '{}', 'ping before initialize is answered');
check(by('early') && by('early')[1].error?.code === -32600, 'tools/list before initialize is refused',
  by('early') && by('early')[0]);
check(got.some(([l]) => l.includes('"id":9223372036854775807,')), 'a 64-bit id comes back as written',
  out2.slice(0, 400));
check(got.some(([l]) => l.includes('"id":-12345678901234567890,')), 'a big negative id comes back as written');
check(got.some(([l]) => l.includes('"id":1e3,')), 'an id 1e3 comes back as written');
check(!by('run'), 'no answer for the cancelled call', by('run') && by('run')[0]);
check(!by('queued'), 'no answer for the call cancelled before it started');
check(!fs.existsSync(path.join(work, 'never.txt')), 'the cancelled write wrote nothing');
check(by('q1') && by('q1')[1].result?.isError === false, 'a call within the bound runs', by('q1') && by('q1')[0]);
check(by('q2') && by('q2')[1].error?.code === -32000 && /busy/.test(by('q2')[1].error.message),
  'a call past --max-calls gets -32000 busy', by('q2') && by('q2')[0]);
fs.rmSync(work, { recursive: true, force: true });
done();
