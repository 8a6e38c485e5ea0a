// tests/mcp/lib.mjs - shared helpers of the MCP and hook-snippet tests.
//
// Every script prints one line per check and ends with `N passed, N failed`;
// it exits 1 when a check failed, and also when it could not run at all
// (missing LOCUS_BIN, missing npm packages): a check that did not run must
// never look like a pass.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const sourceRoot = process.env.LOCUS_SOURCE_ROOT ||
  path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
export const locusBin = process.env.LOCUS_BIN;

let passed = 0, failed = 0;

export function check(ok, what, detail) {
  if (ok) {
    passed++;
    console.log(`ok - ${what}`);
  } else {
    failed++;
    console.log(`FAIL - ${what}${detail === undefined ? '' : ': ' + detail}`);
  }
  return ok;
}

export function done() {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed || passed === 0 ? 1 : 0);
}

export function cannotRun(why) {
  console.log(`FAIL - not run: ${why}`);
  console.log(`0 passed, 1 failed`);
  process.exit(1);
}

// The packages the test needs, or fail (never skip).
export function requirePackages(...names) {
  if (!locusBin || !fs.existsSync(locusBin))
    cannotRun('LOCUS_BIN is not set to the built locus');
  for (const n of names) {
    const p = path.join(sourceRoot, 'node_modules', ...n.split('/'), 'package.json');
    if (!fs.existsSync(p))
      cannotRun(`${n} is not installed (run \`npm ci --ignore-scripts\`)`);
  }
}

// A fresh temporary folder.
export function tempDir(tag) {
  return fs.mkdtempSync(path.join(os.tmpdir(), `locus-${tag}-`));
}

// A workspace for the documented `locus mcp` entry, whose backend is the
// bwrap sandbox by default: run as root, the sandbox runs as uid 65534
// (never host uid 0), so the folder is theirs.
export function sandboxWorkspace(tag) {
  const d = tempDir(tag);
  if (process.getuid && process.getuid() === 0)
    fs.chownSync(d, 65534, 65534);
  return d;
}

// A folder holding `locus` (a link to LOCUS_BIN), for the snippets that
// call `locus` from PATH; returns an env with it first on PATH.
export function envWithLocus() {
  const bin = tempDir('bin');
  fs.symlinkSync(path.resolve(locusBin), path.join(bin, 'locus'));
  process.on('exit', () => fs.rmSync(bin, { recursive: true, force: true }));
  return { ...process.env, PATH: `${bin}:${process.env.PATH}` };
}

// The code block after `<!-- snippet: NAME -->` in docs/integrations.md.
export function snippet(name) {
  const doc = fs.readFileSync(path.join(sourceRoot, 'docs', 'integrations.md'), 'utf8');
  const re = new RegExp(`<!-- snippet: ${name} -->\\n\`\`\`[a-z]*\\n([\\s\\S]*?)\\n\`\`\`\\n`);
  const m = doc.match(re);
  if (!m)
    cannotRun(`docs/integrations.md has no snippet "${name}"`);
  return m[1];
}

// The locus server entry of the docs' mcpServers snippet.
export function mcpServerEntry() {
  const cfg = JSON.parse(snippet('mcp-servers'));
  const e = cfg.mcpServers && cfg.mcpServers.locus;
  if (!e || e.command !== 'locus' || !Array.isArray(e.args))
    cannotRun('the mcp-servers snippet has no locus entry');
  return e;
}
