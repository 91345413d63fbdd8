// Browser scenarios for Usher's admin UI, in Debian's Chromium driven by playwright-core.
// Run by AdminUiBrowserTest (JUnit), which starts a real Usher, then checks the config file and routing itself:
//   node ui-tests/admin-ui.mjs SCENARIO
// Environment: USHER_ADMIN_URL (http://127.0.0.1:PORT), USHER_CONFIG_FILE, USHER_SCREENSHOTS (a folder), and per
// scenario SITE_NAME, SITE_UPSTREAM(_2), EXPECT_ERROR, ADMIN_PASSWORD, RENEW_NAME, BACKUP_FILE, STREAM_NAME,
// STREAM_UPSTREAM, PASSTHROUGH_NAME. Exit code 0 = the scenario passed; on failure
// the message, the page's console and a screenshot (failure-SCENARIO.png) tell what the page showed.
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const scenario = process.argv[2];
const env = name => {
  const value = process.env[name];
  if (!value) throw new Error(`environment variable ${name} is not set`);
  return value;
};
const base = env('USHER_ADMIN_URL');
const shots = env('USHER_SCREENSHOTS');
fs.mkdirSync(shots, { recursive: true });

function check(condition, message) {
  if (!condition) throw new Error(message);
}

async function shot(page, name, options = {}) {
  await page.screenshot({ path: path.join(shots, `${name}.png`), ...options });
}

/** The element that describes an input's error (its aria-describedby points at it). */
async function errorOf(page, input) {
  const ids = (await input.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean);
  check(ids.length, 'the input has no aria-describedby pointing at its error element');
  return page.locator(`[id="${ids[0]}"]`);
}

async function openSites(page) {
  await page.goto(`${base}/`);
  await page.getByRole('heading', { name: 'Sites' }).waitFor();
  await page.locator('#site-list table, #site-list .empty').first().waitFor();
}

async function fillNewSite(page, name, upstream) {
  await page.getByRole('link', { name: 'Add site' }).click();
  await page.getByRole('heading', { name: 'Add a site' }).waitFor();
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Upstream 1', { exact: true }).fill(upstream);
  await page.getByLabel('TLS certificate').selectOption('off');
}

const scenarios = {
  /** Add a site with the form; it shows in the list. Also the screenshots of the main screens. */
  async add(page) {
    const name = env('SITE_NAME');
    await openSites(page);
    await fillNewSite(page, name, env('SITE_UPSTREAM'));
    await page.getByRole('button', { name: 'Add site' }).click();
    const row = page.locator(`tr[data-site="${name}"]`);
    await row.waitFor();
    await page.getByRole('status').filter({ hasText: `Added ${name}` }).waitFor();
    check((await row.textContent()).includes(env('SITE_UPSTREAM')), `the new row does not show the upstream: ${await row.textContent()}`);
    await page.locator('.upstreams .dot.up').first().waitFor();
    await shot(page, 'site-list');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, 'site-list-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 375, height: 812 });
    await shot(page, 'site-list-phone', { fullPage: true });
    const card = await row.boundingBox();
    check(card.width <= 375, `at 375 px the site row is ${card.width} px wide`);
    const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    check(pageWidth <= 375, `at 375 px the page scrolls sideways (${pageWidth} px wide)`);
    await page.setViewportSize({ width: 1100, height: 720 });
    await page.getByRole('link', { name: 'Certificates' }).click();
    await page.locator('.cert').first().waitFor();
    await shot(page, 'certificates');
    const renewed = env('RENEW_NAME');
    await page.getByRole('button', { name: `Renew ${renewed} now` }).click();
    await page.getByRole('status').filter({ hasText: `Renewal of ${renewed} started` }).waitFor();
  },

  /** Download a backup, delete a site, restore the backup: the site is back. */
  async 'backup-restore'(page) {
    const name = env('SITE_NAME');
    const saved = env('BACKUP_FILE');
    await page.goto(`${base}/#/backup`);
    const [download] = await Promise.all([page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download backup' }).click()]);
    check(/^usher-backup-.+\.tar\.gz$/.test(download.suggestedFilename()), `backup file name: ${download.suggestedFilename()}`);
    await download.saveAs(saved);
    await page.getByRole('link', { name: 'Sites' }).click();
    await page.getByRole('button', { name: `Delete ${name}` }).click();
    await page.locator('dialog#confirm').getByRole('button', { name: 'Delete site' }).click();
    await page.locator(`tr[data-site="${name}"]`).waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'Backup' }).click();
    await page.getByLabel('Backup file').setInputFiles(saved);
    await page.getByRole('button', { name: 'Restore…' }).click();
    await page.locator('dialog#confirm').getByRole('button', { name: 'Restore' }).click();
    await page.getByRole('status').filter({ hasText: 'Restored' }).waitFor();
    await shot(page, 'backup');
    await page.getByRole('link', { name: 'Sites' }).click();
    await page.locator(`tr[data-site="${name}"]`).waitFor();
  },

  /** Edit a site: another upstream, a second row, security headers on. */
  async edit(page) {
    const name = env('SITE_NAME');
    await openSites(page);
    await page.getByRole('link', { name: `Edit ${name}` }).click();
    await page.getByRole('heading', { name: `Edit ${name}` }).waitFor();
    await page.getByLabel('Upstream 1', { exact: true }).fill(env('SITE_UPSTREAM'));
    await page.getByRole('button', { name: 'Add upstream' }).click();
    const second = page.getByLabel('Upstream 2', { exact: true });
    check(await second.evaluate(el => el === document.activeElement), 'the new upstream row did not get the focus');
    await second.fill(env('SITE_UPSTREAM_2'));
    await page.getByText('More options').click();
    await page.getByLabel('Security headers').check();
    await shot(page, 'site-form-edit', { fullPage: true });
    await page.getByRole('button', { name: 'Save changes' }).click();
    const row = page.locator(`tr[data-site="${name}"]`);
    await row.filter({ hasText: env('SITE_UPSTREAM_2') }).waitFor();
  },

  /** Paths: add two with their upstream and strip flag, remove the second, save; a bad pattern's error sits at its row. */
  async paths(page) {
    const name = env('SITE_NAME');
    await openSites(page);
    await page.getByRole('link', { name: `Edit ${name}` }).click();
    await page.getByRole('heading', { name: `Edit ${name}` }).waitFor();
    await page.getByRole('button', { name: 'Add path' }).click();
    const first = page.getByLabel('Path 1', { exact: true });
    check(await first.evaluate(el => el === document.activeElement), 'the new path row did not get the focus');
    await first.fill('api/');
    await page.getByLabel('Upstream of path 1', { exact: true }).fill(env('SITE_UPSTREAM'));
    await page.getByLabel('Strip the prefix of path 1', { exact: true }).check();
    await page.getByRole('button', { name: 'Add path' }).click();
    await page.getByLabel('Path 2', { exact: true }).fill('/gone/');
    await page.getByLabel('Upstream of path 2', { exact: true }).fill('gone:80');
    await page.getByRole('button', { name: 'Remove path 2' }).click();
    check(await page.getByLabel('Path 2', { exact: true }).count() === 0, 'path 2 is still there after Remove');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const error = await errorOf(page, first);
    await error.filter({ hasText: 'a path starts with "/"' }).waitFor();
    check(await first.getAttribute('aria-invalid') === 'true', 'the path input is not marked aria-invalid');
    await first.fill('/api/');
    await shot(page, 'site-form-paths', { fullPage: true });
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: `Saved ${name}` }).waitFor();
    await page.getByRole('link', { name: `Edit ${name}` }).click();
    const again = page.getByLabel('Path 1', { exact: true });
    await again.waitFor();
    check(await again.inputValue() === '/api/', `the saved path reads back as ${await again.inputValue()}`);
    check(await page.getByLabel('Strip the prefix of path 1', { exact: true }).isChecked(), 'the strip flag did not read back');
  },

  /**
   * A static site from the form (the upstream rows give way to a folder), read back; then the other site put in
   * maintenance mode with a wait for restarting backends, read back.
   */
  async 'self-hosting'(page) {
    await openSites(page);
    await page.getByRole('link', { name: 'Add site' }).click();
    await page.getByLabel('Name', { exact: true }).fill(env('STATIC_NAME'));
    await page.getByLabel('This site', { exact: true }).selectOption('folder');
    check(await page.getByLabel('Upstream 1', { exact: true }).isHidden(), 'the upstream rows still show for a folder');
    await page.getByRole('button', { name: 'Add site' }).click();
    const folder = page.getByLabel('Folder', { exact: true });
    const missing = await errorOf(page, folder);
    await missing.filter({ hasText: 'Give the folder to serve.' }).waitFor();
    await folder.fill(env('STATIC_ROOT'));
    await page.getByLabel('TLS certificate', { exact: true }).selectOption('off');
    await page.getByRole('button', { name: 'Add site' }).click();
    await page.getByRole('status').filter({ hasText: `Added ${env('STATIC_NAME')}` }).waitFor();
    const row = page.locator(`tr[data-site="${env('STATIC_NAME')}"]`);
    await row.filter({ hasText: 'serves files' }).waitFor();
    await page.getByRole('link', { name: `Edit ${env('STATIC_NAME')}` }).click();
    await page.getByLabel('Folder', { exact: true }).waitFor();
    check(await page.getByLabel('Folder', { exact: true }).inputValue() === env('STATIC_ROOT'), 'the folder did not read back');
    await page.getByRole('link', { name: 'Cancel' }).click();

    const name = env('SITE_NAME');
    await page.getByRole('link', { name: `Edit ${name}` }).click();
    await page.getByRole('heading', { name: `Edit ${name}` }).waitFor();
    await page.getByText('Login, restarts and maintenance').click();
    await page.getByLabel('Wait for a restarting backend', { exact: true }).fill('10s');
    await page.getByLabel(/Maintenance mode/).check();
    await shot(page, 'site-form-self-hosting', { fullPage: true });
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: `Saved ${name}` }).waitFor();
    await page.getByRole('link', { name: `Edit ${name}` }).click();
    await page.getByLabel(/Maintenance mode/).waitFor({ state: 'attached' });
    check(await page.getByLabel(/Maintenance mode/).isChecked(), 'maintenance mode did not read back');
    check(await page.getByLabel('Wait for a restarting backend', { exact: true }).inputValue() === '10s',
      'the wait did not read back');
  },

  /** The Fleet page: the three nodes from their heartbeats, this one marked, the one whose sites differ flagged. */
  async fleet(page) {
    await page.goto(`${base}/`);
    await page.getByRole('link', { name: 'Fleet', exact: true }).click();
    await page.getByRole('heading', { name: 'Fleet' }).waitFor();
    const rows = page.locator('table.fleet tbody tr');
    await rows.nth(2).waitFor();
    check(await rows.count() === 3, `the fleet lists ${await rows.count()} nodes, expected 3`);
    check((await page.locator('tr[data-node="a"]').textContent()).includes('(this node)'), 'node a is not marked as this node');
    check(await page.locator('tr[data-node="c"] .badge').filter({ hasText: 'drift' }).count() === 1, 'node c is not flagged as drift');
    check(await page.locator('tr[data-node="b"] .badge').filter({ hasText: 'same' }).count() === 1, 'node b is not shown as the same');
    await page.getByRole('alert').filter({ hasText: 'Config drift' }).waitFor();
    const text = await page.locator('main, body').first().innerText();
    check(!/\bnull\b|undefined/.test(text), `the page shows a placeholder value: ${text}`);
    await shot(page, 'fleet');
  },

  /** An invalid upstream: the server's error appears at that upstream's field, and nothing else changes. */
  async 'invalid-upstream'(page) {
    await openSites(page);
    await fillNewSite(page, env('SITE_NAME'), env('SITE_UPSTREAM'));
    await page.getByRole('button', { name: 'Add site' }).click();
    const input = page.getByLabel('Upstream 1', { exact: true });
    const error = await errorOf(page, input);
    await error.filter({ hasText: /\S/ }).waitFor();
    const text = await error.textContent();
    check(text.includes(env('EXPECT_ERROR')), `the upstream's error element says "${text}", expected "${env('EXPECT_ERROR')}"`);
    check(await input.getAttribute('aria-invalid') === 'true', 'the upstream input is not marked aria-invalid');
    check(await page.getByLabel('Name', { exact: true }).inputValue() === env('SITE_NAME'), 'the form lost its input');
    check(await page.locator('#form-errors').textContent() === '', 'a field error also appeared at the top of the form');
    await shot(page, 'site-form-error');
  },

  /** Delete with the confirmation dialog: Cancel keeps the site, Delete removes it. */
  async delete(page) {
    const name = env('SITE_NAME');
    await openSites(page);
    const row = page.locator(`tr[data-site="${name}"]`);
    await row.waitFor();
    const dialog = page.locator('dialog#confirm');
    await page.getByRole('button', { name: `Delete ${name}` }).click();
    await dialog.waitFor();
    check((await dialog.textContent()).includes(name), 'the dialog does not name the site');
    await shot(page, 'delete-dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    check(await row.count() === 1, 'Cancel removed the site');
    await page.getByRole('button', { name: `Delete ${name}` }).click();
    await dialog.getByRole('button', { name: 'Delete site' }).click();
    await row.waitFor({ state: 'detached' });
    await page.getByRole('status').filter({ hasText: `Deleted ${name}` }).waitFor();
  },

  /** With a password: the login screen first, a wrong password refused, the right one lets in; log out again. */
  async login(page) {
    await page.goto(`${base}/`);
    const password = page.getByLabel('Password');
    await password.waitFor();
    check(await page.locator('#site-list').count() === 0, 'the site list shows before login');
    const unauthenticated = await page.evaluate(async () => (await fetch('/api/sites')).status);
    check(unauthenticated === 401, `GET /api/sites without a session answered ${unauthenticated}`);
    await password.fill('not the password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.locator('#login-error').filter({ hasText: 'Wrong password' }).waitFor();
    await shot(page, 'login');
    await password.fill(env('ADMIN_PASSWORD'));
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.locator(`tr[data-site="${env('SITE_NAME')}"]`).waitFor();
    const cookies = await page.context().cookies();
    const session = cookies.find(c => c.name === 'usher_session');
    check(session && session.httpOnly && session.sameSite === 'Strict', `session cookie: ${JSON.stringify(session)}`);
    await page.getByRole('button', { name: 'Log out' }).click();
    await password.waitFor();
    const after = await page.evaluate(async () => (await fetch('/api/sites')).status);
    check(after === 401, `GET /api/sites after logout answered ${after}`);
  },

  /** A hand edit of the file between loading the form and saving it: the 412 banner, input kept, reload, save. */
  async stale(page) {
    const name = env('SITE_NAME');
    await openSites(page);
    await fillNewSite(page, name, env('SITE_UPSTREAM'));
    fs.appendFileSync(env('USHER_CONFIG_FILE'), '# edited by hand while the form was open\n');
    await page.getByRole('button', { name: 'Add site' }).click();
    const banner = page.locator('#form-errors');
    await banner.filter({ hasText: 'the config file changed on disk since you loaded it' }).waitFor();
    await shot(page, 'stale-banner');
    check(await page.getByLabel('Name', { exact: true }).inputValue() === name, 'the form lost the name');
    check(await page.getByLabel('Upstream 1', { exact: true }).inputValue() === env('SITE_UPSTREAM'), 'the form lost the upstream');
    await page.getByRole('button', { name: 'Reload data' }).click();
    await banner.filter({ hasText: 'Your input is kept' }).waitFor();
    await page.getByRole('button', { name: 'Add site' }).click();
    await page.locator(`tr[data-site="${name}"]`).waitFor();
  },

  /** The read-only Streams page lists a stream with its backend's state and a passthrough site. */
  async streams(page) {
    const stream = env('STREAM_NAME');
    await page.goto(`${base}/`);
    await page.getByRole('link', { name: 'Streams' }).click();
    await page.getByRole('heading', { name: 'Streams', level: 1 }).waitFor();
    const card = page.locator(`[data-stream="${stream}"]`);
    await card.waitFor();
    await card.locator('.badge.up').waitFor();
    check((await card.textContent()).includes(env('STREAM_UPSTREAM')), `the stream card does not show its backend: ${await card.textContent()}`);
    await page.locator(`[data-passthrough="${env('PASSTHROUGH_NAME')}"]`).waitFor();
    await shot(page, 'streams');
  },
};

const run = scenarios[scenario];
if (!run) {
  console.error(`unknown scenario "${scenario}"; one of: ${Object.keys(scenarios).join(', ')}`);
  process.exit(2);
}
if (!fs.existsSync(CHROMIUM)) {
  console.error(`no Chromium at ${CHROMIUM} (Debian: apt-get install chromium)`);
  process.exit(3);
}
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
const context = await browser.newContext({ viewport: { width: 1100, height: 720 }, acceptDownloads: true });
context.setDefaultTimeout(15_000); // generous: CI machines share 2 cores with other work
const page = await context.newPage();
const log = [];
page.on('console', m => log.push(`console.${m.type()}: ${m.text()}`));
page.on('pageerror', e => log.push(`page error: ${e.message}`));
page.on('response', r => { if (r.status() >= 400) log.push(`${r.request().method()} ${r.url()} -> ${r.status()}`); });
let code = 0;
try {
  await run(page);
  const errors = log.filter(l => l.startsWith('page error') || /Content Security Policy/.test(l));
  check(!errors.length, `the page logged errors:\n${errors.join('\n')}`);
  console.log(`scenario ${scenario}: passed`);
} catch (e) {
  code = 1;
  console.error(`scenario ${scenario}: FAILED: ${e.stack || e}`);
  console.error(`page: ${page.url()}\n${log.join('\n')}`);
  await shot(page, `failure-${scenario}`, { fullPage: true }).catch(() => {});
} finally {
  await browser.close();
}
process.exit(code);
