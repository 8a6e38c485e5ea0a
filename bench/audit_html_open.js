// bench/audit_html_open.js - how long the HTML report of `locus audit
// transcripts` takes to show its first screen in headless Chromium
// (Debian's /usr/bin/chromium, driven by puppeteer-core from package.json).
//
//   node bench/audit_html_open.js REPORT.html [SCREENSHOT.png]
//
// Prints one JSON line: the file's size, the milliseconds from navigation
// to DOMContentLoaded, to the page's script being done (body
// data-ready="1": the summary, findings and tables drawn) and to the
// first screen captured, the browser's JS heap, and the figures read back
// from the first screen.  A measurement, not a test: it asserts nothing.
"use strict";
const fs = require("fs");
const path = require("path");
const puppeteer = require("puppeteer-core");

(async () => {
  const file = path.resolve(process.argv[2]);
  const shot = process.argv[3];
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run"],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 900 });
    const t0 = Date.now();
    await page.goto("file://" + file, { waitUntil: "domcontentloaded", timeout: 600000 });
    const dcl = Date.now() - t0;
    await page.waitForSelector("body[data-ready='1']", { timeout: 600000 });
    const ready = Date.now() - t0;
    if (shot) await page.screenshot({ path: shot });
    const shown = Date.now() - t0;
    const figures = await page.evaluate(() => ({
      calls: document.getElementById("s-calls").textContent,
      denied: document.getElementById("s-deny").textContent,
      held: document.getElementById("s-require_human").textContent,
      riskiest: document.querySelectorAll("#riskiest tbody tr").length,
      parts: document.querySelectorAll("#parts a").length,
    }));
    const m = await page.metrics();
    console.log(JSON.stringify({
      file: path.basename(file), bytes: fs.statSync(file).size,
      domcontentloaded_ms: dcl, ready_ms: ready, first_screen_ms: shown,
      js_heap_mb: Math.round(m.JSHeapUsedSize / 1e5) / 10, figures,
    }));
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error(e); process.exit(1); });
