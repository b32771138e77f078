// The newcomer's path in a real browser: from an empty browser to a working
// API call with a key made in the developer portal, then rotation,
// revocation, signing out and in with the keyboard only, a phone-width
// screen, a cross-site attempt, the reference pages of both servers, and
// the guide server's confirmation page, where a person approves what their
// agent asked for.
// Every step leaves a screenshot in SCREENSHOT_DIR. Chromium runs with
// TZ=UTC, so a time shown in the browser's zone by mistake shows.
//
// Run through run.sh, which starts the server and sets PROPERTY_URL,
// GUIDE_URL, CHROMIUM and SCREENSHOT_DIR.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const PROPERTY = process.env.PROPERTY_URL;
const GUIDE = process.env.GUIDE_URL;
// APP_PORT: where the tests serve a browser app of another origin;
// run.sh allows http://127.0.0.1:APP_PORT in PROPERTY_CORS_ALLOWED_ORIGINS.
const APP_PORT = Number(process.env.APP_PORT);
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SHOTS = process.env.SCREENSHOT_DIR || join(import.meta.dirname, 'screenshots');
assert.ok(PROPERTY && GUIDE && APP_PORT, 'PROPERTY_URL, GUIDE_URL and APP_PORT must be set (use run.sh)');

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];

const unique = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const dev = { name: 'Ada Lovelace', email: `ada.${unique}@example.com`, password: 'analytical-engine-1843' };

let browser;
let app; // the other origin's web server
let context;
let page;
const problems = []; // console errors, page errors, requests leaving the machine
let shotNo = 0;

// shot saves a numbered screenshot of p: the whole page, or the viewport
// for pages that are one long scroll (the reference).
async function shot(p, name, fullPage = true) {
  shotNo += 1;
  const file = join(SHOTS, `${String(shotNo).padStart(2, '0')}-${name}.png`);
  await p.screenshot({ path: file, fullPage, animations: 'disabled' });
  return file;
}

// watch records what must not happen on a page: scripts failing, CSP
// violations, and requests to anywhere but this machine (web/build.sh
// makes Redoc's attribution logo an inline picture: none is left).
function watch(p) {
  p.on('pageerror', (err) => problems.push(`${p.url()}: page error: ${err.message}`));
  p.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    const text = msg.text();
    if (text.startsWith('Failed to load resource')) return; // 4xx answers the tests provoke
    problems.push(`${p.url()}: console: ${text}`);
  });
  p.on('request', (req) => {
    const url = new URL(req.url());
    if (['data:', 'blob:'].includes(url.protocol)) return;
    if (url.hostname === '127.0.0.1' || url.hostname === 'localhost') return;
    problems.push(`${p.url()}: request to ${url.href}`);
  });
  return p;
}

// load opens url in p and waits for ready and for the page's requests to
// settle; it answers what went wrong meanwhile: console errors (a failed
// request is one: "Failed to load resource") and answers of 400 or more.
async function load(p, url, ready) {
  const seen = [];
  const onConsole = (msg) => { if (msg.type() === 'error') seen.push(`console: ${msg.text()}`); };
  const onResponse = (res) => { if (res.status() >= 400) seen.push(`${res.request().method()} ${res.url()}: ${res.status()}`); };
  p.on('console', onConsole);
  p.on('response', onResponse);
  try {
    await p.goto(url);
    await p.locator(ready).waitFor();
    await p.waitForLoadState('networkidle');
  } finally {
    p.off('console', onConsole);
    p.off('response', onResponse);
  }
  return seen;
}

// portalCards answers, for each card of the signed-in view, the id or
// label of the card it sits in ('' for none): every card is the view's
// own, none inside another.
function portalCards(p) {
  return p.$$eval('#view-app .card', (cards) => cards.map((c) => {
    const name = (el) => el.id || el.getAttribute('aria-labelledby') || el.className;
    const outer = c.parentElement.closest('.card');
    return `${name(c)} in ${outer ? name(outer) : 'the view'}`;
  }));
}

// shotOf saves a numbered screenshot of one element.
async function shotOf(locator, name) {
  shotNo += 1;
  await locator.screenshot({ path: join(SHOTS, `${String(shotNo).padStart(2, '0')}-${name}.png`), animations: 'disabled' });
}

async function newPage(ctx = context) {
  return watch(await ctx.newPage());
}

// callAPI calls the property API with an API key, as an integrator would.
async function callAPI(key, path = '/api/v1/properties?city=tokyo&pageSize=1') {
  const res = await fetch(PROPERTY + path, { headers: { 'X-API-KEY': key } });
  return { status: res.status, body: await res.json() };
}

async function keyCount() {
  return page.locator('#keys > li').count();
}

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  // A page of a browser app on another origin: no CSP, no cookies.
  app = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Another app</title><h1>Another app</h1>');
  });
  await new Promise((resolve) => app.listen(APP_PORT, '127.0.0.1', resolve));
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS, env: { ...process.env, TZ: 'UTC' } });
  context = await browser.newContext({ viewport: { width: 1280, height: 860 }, deviceScaleFactor: 1, locale: 'en-GB' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: PROPERTY });
  page = await newPage();
});

after(async () => {
  await browser?.close();
  app?.close();
});

test('the portal opens on the sign-up form', async () => {
  assert.deepEqual(await load(page, `${PROPERTY}/portal/`, '#view-auth'), [], 'opening the portal signed out fails nothing');
  assert.equal(await page.getAttribute('#tab-signup', 'aria-selected'), 'true');
  assert.ok(await page.locator('#signup-form').isVisible());
  await shot(page, 'portal-sign-up');
});

test('sign-up checks the fields in place', async () => {
  await page.click('#signup-form button[type=submit]');
  assert.equal(await page.textContent('#signup-name-error'), 'Enter a name.');
  assert.equal(await page.textContent('#signup-email-error'), 'Enter your e-mail address.');
  assert.equal(await page.textContent('#signup-password-error'), 'Enter your password.');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'signup-name', 'the first wrong field has the focus');

  await page.fill('#signup-name', dev.name);
  await page.fill('#signup-email', 'ada-at-example');
  await page.fill('#signup-password', 'short');
  await page.click('#signup-form button[type=submit]');
  assert.equal(await page.textContent('#signup-name-error'), '');
  assert.match(await page.textContent('#signup-email-error'), /e-mail address like/);
  assert.equal(await page.textContent('#signup-password-error'), 'Use at least 8 characters.');
  assert.equal(await page.getAttribute('#signup-password', 'aria-invalid'), 'true');
  await shot(page, 'sign-up-checked-in-the-browser');
});

test('sign-up shows the server\'s answer in place', async () => {
  // An account with this address exists already: the server says 409.
  const taken = `taken.${unique}@example.com`;
  const res = await fetch(`${PROPERTY}/portal/api/signup`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: taken, password: 'correct-horse-1', name: 'Someone' }),
  });
  assert.equal(res.status, 201);
  await page.fill('#signup-email', taken);
  await page.fill('#signup-password', dev.password);
  await page.click('#signup-form button[type=submit]');
  await page.locator('#signup-email-error', { hasText: 'already exists' }).waitFor();
  assert.ok(await page.locator('#signup-email-error button', { hasText: 'Sign in instead' }).isVisible());
  await shot(page, 'sign-up-email-taken');
});

test('sign-up signs in with an HttpOnly session cookie', async () => {
  await page.fill('#signup-email', dev.email);
  await page.click('#signup-form button[type=submit]');
  await page.locator('#view-app').waitFor();
  assert.equal(await page.textContent('#dev-name'), dev.name);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'app-title');

  const cookies = await context.cookies(`${PROPERTY}/portal/`);
  const session = cookies.find((c) => c.name === 'pp_session');
  assert.ok(session, 'the pp_session cookie is set');
  assert.equal(session.httpOnly, true);
  assert.equal(session.sameSite, 'Strict');
  assert.equal(session.path, '/portal');
  assert.equal(await page.evaluate(() => document.cookie.includes('pp_session')), false, 'scripts cannot read the cookie');
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
  assert.equal(stored, '{}{}', 'nothing is kept in web storage');
  await page.locator('#keys-empty').waitFor();
  await shot(page, 'signed-in-no-keys');
});

test('the portal reopens signed in, its cards side by side, nothing failing', async () => {
  assert.deepEqual(await load(page, `${PROPERTY}/portal/`, '#keys-empty'), [], 'opening the portal signed in fails nothing');
  assert.equal(await page.textContent('#dev-name'), dev.name);
  // Webhooks and Properties are cards of their own, not inside Usage.
  assert.deepEqual(await portalCards(page), [
    'new-key in the view', 'keys-title in the view', 'create-title in the view', 'qs-title in the view',
    'mcp-title in the view', 'apps-card in the view', 'usage-title in the view', 'webhooks-card in the view', 'properties in the view',
  ]);
  assert.equal(await page.locator('section[aria-labelledby=usage-title] #webhooks-card, section[aria-labelledby=usage-title] #properties').count(), 0);
  for (const card of ['#webhooks-card', '#properties']) {
    assert.equal(await page.$eval(card, (c) => c.parentElement.id), 'view-app', `${card} is a card of the signed-in view`);
  }
  await shot(page, 'signed-in-cards');
});

let firstKey;

test('a new test key is shown once, with a warning and a copy button', async () => {
  await page.fill('#create-name', 'e2e booking widget');
  await page.click('#create-form button[type=submit]');
  await page.locator('#new-key').waitFor();
  firstKey = await page.textContent('#new-key-value');
  assert.match(firstKey, /^pk_test_[A-Za-z0-9_-]{20,}$/);
  assert.match(await page.textContent('#new-key'), /only time it is shown/);
  assert.equal(await keyCount(), 1);
  assert.match(await page.textContent('#keys .key-prefix'), new RegExp(`^${firstKey.slice(0, 12)}`));

  await page.click('#copy-key');
  await page.locator('#copy-key', { hasText: 'Copied' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), firstKey);
  await shot(page, 'key-created-shown-once');
});

test('the quick-start command works as shown', async () => {
  const cmd = await page.textContent('#quickstart-cmd');
  assert.ok(cmd.includes(firstKey), 'the command holds the new key');
  assert.ok(cmd.startsWith(`curl -s "${PROPERTY}/api/v1/properties?`));
  const out = execFileSync('bash', ['-c', cmd], { encoding: 'utf8', timeout: 15000 });
  const body = JSON.parse(out);
  assert.ok(Array.isArray(body.data) && body.data.length > 0, `properties found: ${out.slice(0, 300)}`);
  assert.ok(body.meta.total >= body.data.length);

  // And the key reads a property, as the quick start goes on to do.
  const one = await callAPI(firstKey, `/api/v1/properties/${encodeURIComponent(body.data[0].id)}`);
  assert.equal(one.status, 200);
  assert.equal(one.body.id, body.data[0].id);
});

test('usage shows the calls per day as a chart', async () => {
  await page.click('#usage-refresh');
  await page.locator('#usage-chart rect.bar-ok').first().waitFor();
  const requests = await page.textContent('#usage-stats .stat:first-child dd');
  assert.ok(Number(requests.replace(/\D/g, '')) >= 2, `requests: ${requests}`);
  assert.equal(await page.locator('#usage-chart svg[role=img]').count(), 1);
  await page.click('.usage-table summary');
  assert.ok(await page.locator('#usage-rows tr th').count() >= 1);
  await shot(page, 'usage-chart');
});

test('the chart draws a month of traffic, 429s and each key apart', async () => {
  // This account's traffic is all from today: hand the page a month of
  // made-up numbers, as the usage endpoint shapes them, to see the chart.
  const now = new Date();
  const days = [];
  for (let i = 29; i >= 0; i--) {
    days.push(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - i)).toISOString().slice(0, 10));
  }
  const data = days.flatMap((date, i) => {
    const base = Math.round(60 + 35 * Math.sin(i / 3.5) + i * 4);
    const rows = [{ date, keyId: 'k-widget', keyPrefix: 'pk_test_wid1', requests: base, rateLimited: i % 7 === 4 ? Math.round(base * 0.2) : 0 }];
    if (i >= 15) rows.push({ date, keyId: 'k-live', keyPrefix: 'pk_live_liv1', requests: Math.round(base * 0.6), rateLimited: 0 });
    return rows;
  });
  await page.route('**/portal/api/usage*', (route) => route.fulfill({ json: { from: days[0], to: days[29], data } }));
  try {
    await page.click('#usage-refresh');
    await page.locator('#usage-chart rect.bar-limited').first().waitFor();
    assert.equal(await page.locator('#usage-chart g.day').count(), 30);
    assert.equal(await page.locator('#usage-chart rect.bar-ok').count(), 30);
    assert.match(await page.textContent('#usage-chart g.day:last-of-type title'), /requests/);
    const total = data.reduce((n, r) => n + r.requests, 0);
    assert.equal(Number((await page.textContent('#usage-stats .stat:first-child dd')).replace(/\D/g, '')), total);
    await shotOf(page.locator('section[aria-labelledby=usage-title]'), 'usage-chart-a-month');

    // One key at a time: the live key was used for the last 15 days only.
    await page.selectOption('#usage-key', 'k-live');
    assert.equal(await page.locator('#usage-chart rect.bar-ok').count(), 15);
    assert.equal(await page.locator('#usage-chart rect.bar-limited').count(), 0);
    await page.selectOption('#usage-key', '');
  } finally {
    await page.unroute('**/portal/api/usage*');
  }
  await page.click('#usage-refresh');
});

test('a host sees its property calendar and edits a range', async () => {
  // A key that may manage properties, made through the portal API as the page would.
  const made = await page.evaluate(async () => {
    const res = await fetch('/portal/api/keys', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'e2e host', mode: 'live', scopes: ['properties:read', 'properties:write', 'calendar:write'] }) });
    return res.json();
  });
  assert.match(made.key, /^pk_live_/);
  const host = async (method, path, body) => {
    const res = await fetch(PROPERTY + path, { method, headers: { 'X-API-KEY': made.key, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const out = { status: res.status, body: await res.json() };
    assert.ok(res.ok, `${method} ${path}: ${res.status} ${JSON.stringify(out.body).slice(0, 300)}`);
    return out.body;
  };
  const p = await host('POST', '/api/v1/properties', { name: 'Canal House', type: 'guesthouse', address: '1-2-3 Asakusa', city: 'Tokyo',
    countryCode: 'JP', latitude: 35.71, longitude: 139.79, timezone: 'Asia/Tokyo', currency: 'JPY', checkInTime: '15:00',
    checkOutTime: '10:00', cancellationPolicy: 'moderate' });
  const rooms = [];
  for (const name of ['Tatami Twin', 'Garden Suite']) {
    rooms.push(await host('POST', `/api/v1/properties/${p.id}/room-types`, { name, maxGuests: 2, totalUnits: 3, basePrice: { amount: 12000 } }));
  }
  await host('PATCH', `/api/v1/properties/${p.id}`, { status: 'active' });
  const day = (n) => { const d = new Date(); d.setUTCDate(d.getUTCDate() + n); return d.toISOString().slice(0, 10); };
  await host('PATCH', `/api/v1/properties/${p.id}/calendar`, { updates: [
    { roomTypeId: rooms[0].id, from: day(1), to: day(70), units: 3, price: { amount: 15000 } },
    { roomTypeId: rooms[1].id, from: day(1), to: day(70), units: 1, price: { amount: 30000 }, daysOfWeek: ['fri', 'sat'], minStay: 2 },
    { roomTypeId: rooms[1].id, from: day(10), to: day(13), closed: true },
    { roomTypeId: rooms[0].id, from: day(20), to: day(22), units: 0 },
  ] });

  await page.reload();
  await page.locator('#prop-list button', { hasText: 'Canal House' }).click();
  await page.locator('#cal-grid tbody tr').nth(1).waitFor();
  assert.equal(await page.locator('#cal-grid tbody tr').count(), 2);
  assert.equal(await page.locator('#cal-grid thead th').count(), 61, 'a room type column and 60 nights');
  const cell = (room, d) => page.locator(`#cal-grid td[data-room="${room}"][data-date="${d}"]`);
  assert.match(await cell(rooms[0].id, day(5)).getAttribute('class'), /cal-ok/);
  assert.match(await cell(rooms[0].id, day(20)).getAttribute('class'), /cal-none/);
  assert.match(await cell(rooms[1].id, day(11)).getAttribute('class'), /cal-closed/);
  await page.locator('#properties').scrollIntoViewIfNeeded();
  await shot(page, 'properties-calendar');

  // Edit a range: close three nights of the twin and set a price.
  await page.selectOption('#cal-form select[name=roomTypeId]', rooms[0].id);
  await page.fill('#cal-form input[name=from]', day(3));
  await page.fill('#cal-form input[name=to]', day(6));
  await page.fill('#cal-form input[name=price]', '18000');
  await page.selectOption('#cal-form select[name=closed]', 'true');
  await page.click('#cal-form button[type=submit]');
  await page.locator(`#cal-grid td[data-room="${rooms[0].id}"][data-date="${day(4)}"].cal-closed`).waitFor();
  assert.match(await cell(rooms[0].id, day(4)).textContent(), /18,000/);
  assert.match(await cell(rooms[0].id, day(6)).getAttribute('class'), /cal-ok/);
  await shot(page, 'properties-calendar-edited');

  // The key is not the test's: revoke it so that the key counts below hold.
  await page.evaluate(async (id) => { await fetch(`/portal/api/keys/${id}`, { method: 'DELETE' }); }, made.id);
  await page.reload();
  await page.locator('#view-app').waitFor();
});

test('after a reload the key is never shown again', async () => {
  await page.reload();
  await page.locator('#view-app').waitFor();
  await page.locator('#keys > li').first().waitFor();
  assert.equal(await page.isVisible('#new-key'), false);
  assert.equal((await page.content()).includes(firstKey), false);
  assert.match(await page.textContent('#quickstart-cmd'), /\$API_KEY/);
});

let rotatedKey;

test('rotating a key shows the new one; the old one works for 24 hours', async () => {
  await page.click('#keys > li:first-child button[data-action=rotate]');
  await page.locator('#confirm[open]').waitFor();
  assert.match(await page.textContent('#confirm-body'), /24 hours/);
  await shot(page, 'rotate-confirm', false);
  await page.click('#confirm-ok');
  await page.locator('#new-key').waitFor();
  rotatedKey = await page.textContent('#new-key-value');
  assert.match(rotatedKey, /^pk_test_/);
  assert.notEqual(rotatedKey, firstKey);
  await page.locator('#keys .key-expiry').waitFor();
  assert.equal(await keyCount(), 2);
  assert.equal((await callAPI(firstKey)).status, 200, 'the rotated key still works');
  assert.equal((await callAPI(rotatedKey)).status, 200, 'the new key works');
  await shot(page, 'key-rotated');
});

test('a revoked key is refused at once', async () => {
  for (const key of [rotatedKey, firstKey]) {
    const row = page.locator(`#keys > li[data-key-prefix="${key.slice(0, 12)}"]`);
    await row.locator('button[data-action=revoke]').click();
    await page.locator('#confirm[open]').waitFor();
    if (key === rotatedKey) await shot(page, 'revoke-confirm', false);
    await page.click('#confirm-ok');
    await row.waitFor({ state: 'detached' });
    const res = await callAPI(key);
    assert.equal(res.status, 401, `revoked ${key.slice(0, 12)}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.error.code, 'UNAUTHORIZED');
    // The error's doc_url is a page this server serves.
    const doc = await fetch(res.body.error.doc_url);
    assert.equal(doc.status, 200);
    assert.match(doc.headers.get('content-type'), /^text\/html/);
  }
  assert.equal(await page.isVisible('#new-key'), false, 'the revoked key is no longer on screen');
  await page.locator('#keys-empty').waitFor();
  await shot(page, 'keys-revoked');
});

test('webhooks: add an endpoint, see its secret once, send a test event and see the delivery', async () => {
  // A receiver on this machine (WEBHOOK_ALLOW_HOSTS=127.0.0.1 in run.sh).
  const got = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => { got.push({ headers: req.headers, body }); res.writeHead(204).end(); });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${receiver.address().port}/hooks`;
  try {
    await page.locator('#webhooks-empty').waitFor();
    // The form checks the URL in place, then the server's policy answers.
    await page.fill('#webhook-url', 'http://example.com/hooks');
    await page.click('#webhook-form button[type=submit]');
    await page.locator('#webhook-url-error:not(:empty)').waitFor();
    assert.match(await page.textContent('#webhook-url-error'), /https/);
    await page.fill('#webhook-url', url);
    await page.click('#webhook-form button[type=submit]');
    await page.locator('#new-secret').waitFor();
    const secret = await page.textContent('#new-secret-value');
    assert.match(secret, /^whsec_/);
    await page.locator('#webhooks > li').first().waitFor();
    assert.match(await page.textContent('#webhooks > li:first-child'), /Active/);
    await shotOf(page.locator('#webhooks-card'), 'webhook-created');
    await page.click('#dismiss-secret');
    assert.equal(await page.isVisible('#new-secret'), false);

    await page.click('#webhooks > li:first-child button[data-action=test]');
    await page.locator('#delivery-rows tr .badge-succeeded').waitFor({ timeout: 10000 });
    const row = await page.textContent('#delivery-rows tr:first-child');
    assert.match(row, /webhook\.test/);
    assert.match(row, /204/);
    await shotOf(page.locator('#webhooks-card'), 'webhook-delivered');

    // The receiver got it, signed as Standard Webhooks describes.
    assert.equal(got.length, 1);
    const { headers, body } = got[0];
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const mac = createHmac('sha256', key).update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`).digest('base64');
    assert.equal(headers['webhook-signature'], `v1,${mac}`);
    assert.equal(JSON.parse(body).type, 'webhook.test');

    // Deleting asks first.
    await page.click('#webhooks > li:first-child button[data-action=delete]');
    await page.locator('#confirm[open]').waitFor();
    await page.click('#confirm-ok');
    await page.locator('#webhooks-empty').waitFor();
  } finally {
    receiver.close();
  }
});

test('a cross-site page cannot use the session cookie', async () => {
  await page.fill('#create-name', 'kept');
  await page.click('#create-form button[type=submit]');
  await page.locator('#new-key').waitFor();
  await page.click('#dismiss-key');
  assert.equal(await keyCount(), 1);

  // A page of another origin (another app) posts to the
  // portal with the browser's cookies.
  const other = await newPage();
  await other.goto(`http://localhost:${APP_PORT}/`);
  const outcome = await other.evaluate(async (url) => {
    const create = await fetch(`${url}/portal/api/keys`, {
      method: 'POST', credentials: 'include', mode: 'no-cors',
      headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify({ name: 'csrf', mode: 'live' }),
    }).then(() => 'sent', (e) => String(e));
    return create;
  }, PROPERTY);
  assert.equal(outcome, 'sent');
  await other.close();
  await page.click('#usage-refresh');
  await page.waitForTimeout(300);
  assert.equal(await keyCount(), 1, 'no key was created cross-site');
});

test('sign out and back in with the keyboard only', async () => {
  await page.goto(`${PROPERTY}/portal/`);
  await page.locator('#view-app').waitFor();
  const tabTo = async (id, max = 40) => {
    for (let i = 0; i < max; i++) {
      if (await page.evaluate(() => document.activeElement && document.activeElement.id) === id) return;
      await page.keyboard.press('Tab');
    }
    assert.fail(`Tab never reached #${id}`);
  };
  await tabTo('logout');
  await page.keyboard.press('Enter');
  await page.locator('#view-auth').waitFor();
  assert.equal((await context.cookies(`${PROPERTY}/portal/`)).some((c) => c.name === 'pp_session'), false, 'the cookie is cleared');

  // The tabs switch with the arrow keys; the form is reached by Tab and
  // sent with Enter.
  await tabTo('tab-login');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-signup');
  assert.ok(await page.isVisible('#signup-form'));
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-login');
  await tabTo('login-email');
  await page.keyboard.type(dev.email);
  await page.keyboard.press('Tab');
  await page.keyboard.type('a-wrong-password');
  await page.keyboard.press('Enter');
  await page.locator('#login-form .form-error', { hasText: 'wrong' }).waitFor();
  await shot(page, 'sign-in-wrong-password');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'login-password');
  await page.keyboard.type(dev.password);
  await page.keyboard.press('Enter');
  await page.locator('#view-app').waitFor();
  assert.equal(await keyCount(), 1);

  // Create a key with the keyboard: its name, then Enter.
  await tabTo('create-name');
  await page.keyboard.type('made with the keyboard');
  await page.keyboard.press('Enter');
  await page.locator('#new-key').waitFor();
  assert.equal(await page.evaluate(() => document.activeElement.id), 'new-key');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'copy-key');
  await page.keyboard.press('Enter');
  await page.locator('#copy-key', { hasText: 'Copied' }).waitFor();
  await shot(page, 'keyboard-only-key');
});

test('a session cookie that no longer signs in opens the portal signed out, nothing failing', async () => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-GB' });
  try {
    const url = new URL(PROPERTY);
    await ctx.addCookies([{ name: 'pp_session', value: 'expired-or-forged', domain: url.hostname, path: '/portal', httpOnly: true, sameSite: 'Strict' }]);
    const p = await newPage(ctx);
    assert.deepEqual(await load(p, `${PROPERTY}/portal/`, '#view-auth'), []);
    assert.ok(await p.locator('#signup-form').isVisible());
    assert.equal((await ctx.cookies(`${PROPERTY}/portal/`)).some((c) => c.name === 'pp_session'), false, 'the stale cookie is cleared');
  } finally {
    await ctx.close();
  }
});

test('the portal fits a phone-width screen', async () => {
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  // Signed out…
  const p = watch(await phone.newPage());
  await p.goto(`${PROPERTY}/portal/`);
  await p.locator('#view-auth').waitFor();
  assert.ok(await p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling');
  await shot(p, 'phone-sign-up');
  // …and signed in, with a key and some traffic.
  await p.click('#tab-login');
  await p.fill('#login-email', dev.email);
  await p.fill('#login-password', dev.password);
  await p.click('#login-form button[type=submit]');
  await p.locator('#view-app').waitFor();
  await p.fill('#create-name', 'phone key');
  await p.click('#create-form button[type=submit]');
  await p.locator('#new-key').waitFor();
  const key = await p.textContent('#new-key-value');
  // Past the key's budget (PROPERTY_RATE_LIMIT a minute) calls get 429,
  // which the usage shows apart.
  const limit = Number(process.env.PROPERTY_RATE_LIMIT || 60);
  const statuses = [];
  for (let i = 0; i < limit + 5; i++) statuses.push((await callAPI(key)).status);
  assert.ok(statuses.includes(200) && statuses.includes(429), `statuses: ${statuses.join(' ')}`);
  await p.click('#usage-refresh');
  await p.locator('#usage-chart rect.bar-limited').first().waitFor();
  assert.notEqual((await p.textContent('#usage-stats .stat-warn dd')).trim(), '0');
  assert.ok(await p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling');
  await shot(p, 'phone-signed-in');
  await phone.close();
});

test('the property reference renders offline and finds an endpoint', async () => {
  const p = await newPage();
  await p.goto(`${PROPERTY}/docs/`);
  await p.getByRole('heading', { name: 'Property Platform Open API' }).first().waitFor();
  assert.ok(await p.locator('.topnav a[href="/docs/errors/"]').isVisible(), 'the reference links the error codes');
  assert.ok(await p.locator('.topnav a[href="/portal/"]').isVisible(), 'and the portal');
  await shot(p, 'docs-property', false);

  // Search for the quotes endpoint and open it.
  await p.click('[data-testid=search-trigger]');
  await p.getByPlaceholder('Search docs...').fill('quote');
  const hit = p.locator('[data-testid=search-dialog] a[data-component-name="Search/SearchItem"]')
    .filter({ hasText: '/api/v1/quotes' }).filter({ hasText: 'Quote a stay' }).first();
  await hit.waitFor();
  await shot(p, 'docs-property-search', false);
  await hit.click();
  await p.getByRole('heading', { name: 'Quote a stay and hold it' }).first().waitFor();
  await p.waitForTimeout(300);
  assert.match(p.url(), /\/docs\/#\//);
  await shot(p, 'docs-property-endpoint', false);

  // The error-code pages that doc_url points to.
  await p.click('.topnav a[href="/docs/errors/"]');
  await p.getByRole('heading', { name: 'Error codes' }).waitFor();
  assert.ok(await p.locator('#UNAVAILABLE').isVisible());
  assert.ok(await p.locator('.topbar .topnav a[href="/portal/"]').isVisible(), 'the error pages have the reference\'s navigation');
  assert.equal(await p.locator('.topnav a[aria-current=page]').textContent(), 'Error codes');
  await shot(p, 'docs-error-codes', false);
  await p.close();
});

test('the guide reference renders offline and finds an endpoint', async () => {
  const p = await newPage();
  await p.goto(`${GUIDE}/docs/`);
  await p.getByRole('heading', { name: 'Guide Marketplace API' }).first().waitFor();
  assert.equal(await p.locator('.topnav a[href="/portal/"]').count(), 0, 'the guide server has no portal');
  await p.click('[data-testid=search-trigger]');
  await p.getByPlaceholder('Search docs...').fill('experts');
  const hit = p.locator('[data-testid=search-dialog] a[data-component-name="Search/SearchItem"]')
    .filter({ hasText: 'GET/api/v1/experts' }).first();
  await hit.waitFor();
  await shot(p, 'docs-guide-search', false);
  await hit.click();
  await p.waitForTimeout(500);
  assert.match(p.url(), /\/docs\/#\/.*experts/);
  await shot(p, 'docs-guide-endpoint', false);

  // An error's doc_url resolves on the guide server too.
  const res = await fetch(`${GUIDE}/api/v1/experts?pageSize=1000`);
  const body = await res.json();
  assert.equal(res.status, 400);
  const doc = await p.goto(body.error.doc_url);
  assert.equal(doc.status(), 200);
  await p.getByRole('heading', { name: /VALIDATION_ERROR/ }).waitFor();
  await p.close();
});

test('the OCTO reference renders beside the guide reference', async () => {
  const p = await newPage();
  await p.goto(`${GUIDE}/docs/`);
  await p.getByRole('heading', { name: 'Guide Marketplace API' }).first().waitFor();
  await p.click('.topnav a[href="/docs/octo/"]');
  await p.getByRole('heading', { name: 'OCTO API Specification' }).first().waitFor();
  assert.ok(await p.locator('.topnav a[href="/docs/octo/"][aria-current=page]').isVisible(), 'the OCTO reference is the current page');
  await p.click('[data-testid=search-trigger]');
  await p.getByPlaceholder('Search docs...').fill('availability');
  const hit = p.locator('[data-testid=search-dialog] a[data-component-name="Search/SearchItem"]')
    .filter({ hasText: '/availability' }).first();
  await hit.waitFor();
  await shot(p, 'docs-octo-search', false);
  await p.close();
});

test('a person confirms on the guide page what their agent asked for', async () => {
  const email = `kei.${unique}@example.com`;
  const password = 'trip-to-kyoto-2026';
  const call = async (method, path, body, token) => {
    const headers = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (token) headers.Authorization = `Bearer ${token}`;
    const res = await fetch(GUIDE + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: await res.json().catch(() => null) };
  };
  const reg = await call('POST', '/api/v1/auth/register', { email, password, name: 'Kei Traveller', role: 'TOURIST' });
  assert.equal(reg.status, 201);
  const token = reg.body.token;
  const key = await call('POST', '/api/v1/auth/api-keys', { name: 'trip agent', scopes: ['bookings:read', 'bookings:write'] }, token);
  assert.equal(key.status, 201);
  // A package of a Tokyo expert, booked for 09:00 Tokyo time in four days:
  // 00:00 UTC, the zone of this browser.
  let pkg;
  for (const x of (await call('GET', '/api/v1/experts?city=tokyo&pageSize=20')).body.data) {
    if ((await call('GET', `/api/v1/experts/${x.handle}`)).body.data.timezone !== 'Asia/Tokyo') continue;
    pkg = (await call('GET', `/api/v1/experts/${x.handle}/packages?pageSize=1`)).body.data[0];
    if (pkg) break;
  }
  assert.ok(pkg, 'the sample data has a Tokyo expert with a package');
  const day = new Date(Date.now() + 4 * 86400e3).toISOString().slice(0, 10);
  const booked = await call('POST', '/api/v1/bookings', { packageId: pkg.id, scheduledDate: `${day}T09:00:00+09:00`, participants: 2 }, token);
  assert.equal(booked.status, 201);
  assert.equal(new Date(booked.body.data.scheduledDate).toISOString(), `${day}T00:00:00.000Z`);
  // The agent asks; nothing happens yet.
  const asked = await call('POST', `/api/v1/bookings/${booked.body.data.id}/cancel`, undefined, key.body.data.key);
  assert.equal(asked.status, 202);

  const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-GB', timezoneId: 'UTC' });
  const p = await newPage(ctx);
  const failed = [];
  p.on('response', (res) => { if (res.status() >= 400) failed.push(`${res.request().method()} ${new URL(res.url()).pathname}: ${res.status()}`); });
  await p.goto(`${GUIDE}/confirm/`);
  await p.locator('#view-invalid').waitFor();
  assert.equal(await p.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone), 'UTC');

  await p.goto(`${GUIDE}/confirm/?action=${asked.body.actionId}`);
  await p.locator('#view-signin').waitFor();
  await shot(p, 'confirm-sign-in');
  await p.fill('#email', email);
  await p.fill('#password', 'not-the-password');
  await p.click('#signin-form button[type=submit]');
  await p.locator('#signin-form .form-error').waitFor();
  assert.match(await p.textContent('#signin-form .form-error'), /not right/);

  await p.fill('#password', password);
  await p.click('#signin-form button[type=submit]');
  await p.locator('#view-review').waitFor();
  assert.equal(await p.textContent('#review-title'), 'Cancel a booking');
  const facts = async () => Object.fromEntries(await p.$$eval('#review-facts dt', (dts) => dts.map((dt) => [dt.textContent, dt.nextElementSibling.textContent])));
  const before = await facts();
  assert.match(before['Asked by'], /trip agent/);
  assert.equal(before.Booking, pkg.title);
  // The time of the booking where it happens, with its zone named.
  assert.match(before.Date, /\b09:00 Tokyo time \(GMT\+9\)$/, before.Date);
  assert.ok(!before.Date.includes('00:00 '), before.Date);
  assert.match(before['Booking status'], /^Requested/);
  assert.match(before.Expires, / UTC$/, 'the moments the reader acts on are in the reader\'s zone, named');
  assert.equal((await call('GET', `/api/v1/bookings/${booked.body.data.id}`, undefined, token)).body.data.status, 'PENDING');
  await shot(p, 'confirm-review');

  await p.click('#confirm');
  await p.getByText('Done: the booking is cancelled.').waitFor();
  // The state after the confirmation, and only that.
  const after = await facts();
  assert.match(after['Booking status'], /^Cancelled on \S/, after['Booking status']);
  assert.match(after.Confirmed, / UTC$/);
  assert.equal(after.Expires, undefined, 'a confirmed request no longer expires');
  assert.match(after.Date, /\b09:00 Tokyo time \(GMT\+9\)$/);
  const text = await p.innerText('#view-review');
  assert.ok(!/pending|requested|waiting/i.test(text), `nothing says pending any more: ${text}`);
  assert.equal(await p.isVisible('#review-actions'), false);
  await shot(p, 'confirm-done');
  assert.equal((await call('GET', `/api/v1/bookings/${booked.body.data.id}`, undefined, token)).body.data.status, 'CANCELLED');
  assert.deepEqual(failed, ['POST /api/v1/auth/login: 401'], 'only the wrong password failed');
  await ctx.close();
});

test('the reference fits a phone-width screen', async () => {
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  const p = watch(await phone.newPage());
  await p.goto(`${PROPERTY}/docs/`);
  await p.getByRole('heading', { name: 'Getting started' }).first().waitFor();
  assert.ok(await p.locator('.topnav a[href="/docs/errors/"]').isVisible());
  assert.ok(await p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling');
  await shot(p, 'phone-docs', false);
  await phone.close();
});

test('a browser app on another origin reads the catalogue and, once allowed, the property API', async () => {
  // A key for the app, made through the portal API as a script would.
  const login = await fetch(`${PROPERTY}/portal/api/login`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: dev.email, password: dev.password }),
  }).then((r) => r.json());
  const made = await fetch(`${PROPERTY}/portal/api/keys`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${login.token}` },
    body: JSON.stringify({ name: 'browser app', mode: 'test' }),
  }).then((r) => r.json());
  assert.match(made.key, /^pk_test_/);

  const calls = async (p) => p.evaluate(async ({ guide, property, key }) => {
    const out = {};
    // The public catalogue: any origin, headers the client reads exposed.
    const cat = await fetch(`${guide}/api/v1/packages?pageSize=1`, { headers: { 'X-Request-Id': 'browser-app-1' } });
    out.catalogue = { status: cat.status, requestId: cat.headers.get('X-Request-Id'), policy: cat.headers.get('RateLimit-Policy'), etag: !!cat.headers.get('ETag') };
    // The property API with a key: a preflight first (X-API-KEY).
    out.property = await fetch(`${property}/api/v1/properties?pageSize=1`, { headers: { 'X-API-KEY': key } })
      .then(async (r) => ({ status: r.status, remaining: r.headers.get('X-RateLimit-Remaining'), rateLimit: r.headers.get('RateLimit'), count: (await r.json()).data.length }),
        (e) => ({ blocked: e.name }));
    return out;
  }, { guide: GUIDE, property: PROPERTY, key: made.key });

  // The app's origin is in PROPERTY_CORS_ALLOWED_ORIGINS.
  const allowed = await newPage();
  await allowed.goto(`http://127.0.0.1:${APP_PORT}/`);
  const ok = await calls(allowed);
  assert.deepEqual(ok.catalogue, { status: 200, requestId: 'browser-app-1', policy: '"per-ip";q=60;w=60', etag: true });
  assert.equal(ok.property.status, 200);
  assert.equal(ok.property.count, 1);
  assert.match(ok.property.remaining, /^\d+$/);
  assert.match(ok.property.rateLimit, /^"per-key";r=\d+;t=\d+$/);
  await shot(allowed, 'cross-origin-app');
  await allowed.close();

  // Another origin: the catalogue still, the property API not.
  const other = await newPage();
  await other.goto(`http://localhost:${APP_PORT}/`);
  const refused = await calls(other);
  assert.equal(refused.catalogue.status, 200);
  assert.deepEqual(refused.property, { blocked: 'TypeError' });
  await other.close();
  // The browser logs the refused request; it is the point of the test.
  const mine = (x) => x.includes(`localhost:${APP_PORT}`) && (x.includes('CORS') || x.includes('Failed to fetch') || x.includes('ERR_FAILED'));
  for (let i = problems.length - 1; i >= 0; i -= 1) if (mine(problems[i])) problems.splice(i, 1);
});

test('no page failed, broke its CSP or reached outside this machine', () => {
  assert.deepEqual(problems, []);
});
