// tests/gateway_page.mjs - a person at the gateway's page,
// driven by tests/test_gateway.py: headless Chromium (Debian's) through
// puppeteer-core.  Arguments: URL TOKEN APPROVAL_ID RUN_ID.  The person opens
// the page, types the operator token and a name, sees the held call appear
// (tool, labels, reason, policy), writes a justification, approves, and then
// watches the run's live timeline until the run is done.  Prints one JSON
// line of what it saw; exits 1 on any failure.
import puppeteer from "puppeteer-core";

const [url, token, approvalId, runId] = process.argv.slice(2);
const deadline = 120000;
const browser = await puppeteer.launch({
  executablePath: "/usr/bin/chromium",
  headless: true,
  // a hang guard, not a measure: Chromium starts slowly on a loaded machine
  timeout: deadline,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage",
         "--proxy-server=direct://", "--proxy-bypass-list=*"],
});
let failed = null;
const requests = [];
try {
  const page = await browser.newPage();
  page.on("request", (r) => requests.push(r.url()));
  await page.goto(url + "/", { waitUntil: "load" });
  await page.type("#token", token);
  await page.type("#who", "dana");
  await page.click("#connect");
  const card = `[data-approval="${approvalId}"]`;
  await page.waitForSelector(card, { timeout: deadline });
  const seen = await page.$eval(card, (e) => ({
    text: e.innerText,
    call: e.querySelector(".call").innerText,
    labels: [...e.querySelectorAll(".label")].map((l) => l.innerText),
    reason: e.querySelector(".reason").innerText,
  }));
  // Every step waits for the state it needs, never for time: the page
  // re-reads its lists on every change the gateway reports (the running
  // box makes many), and keeps a pending approval's card (and what is
  // typed in it) across those re-reads.
  // approving without a justification is refused by the page itself
  await page.click(card + " .approve");
  await page.waitForFunction(() => document.getElementById("err").textContent.includes("justification"),
                             { timeout: deadline });
  const why = "checked the remote, push is expected";
  await page.type(card + " .why", why);
  await page.waitForFunction((sel, text) => {
    const t = document.querySelector(sel + " .why");
    return t && t.value === text;
  }, { timeout: deadline }, card, why);
  await page.click(card + " .approve");
  await page.waitForSelector(card, { hidden: true, timeout: deadline });
  // the run goes on: the timeline (live, over the event stream) shows it done
  await page.waitForFunction((id) => document.getElementById("run-title").textContent === id + " (done)",
                             { timeout: deadline }, runId);
  const timeline = await page.$eval("#timeline", (e) => e.innerText);
  const external = requests.filter((u) => !u.startsWith(url));
  console.log(JSON.stringify({ seen, timeline, external }));
} catch (e) {
  failed = e;
} finally {
  await browser.close();
}
if (failed) {
  console.error(String(failed.stack || failed));
  process.exit(1);
}
