// The OAuth consent page and the connected-apps page of the guide server in
// a real browser: an application registers, sends the person to
// /oauth/authorize, the person signs in on the consent page, grants fewer
// scopes than asked and approves, and the browser lands back on the
// application's redirect URI with a code that the application exchanges;
// a denial comes back as access_denied; an unknown client is explained to
// the person; the connected-apps page lists the application and revokes
// it, after which its token is refused. Screenshots: oauth-NN-*.png.
//
// Run through run.sh, which starts the server and sets GUIDE_URL,
// CHROMIUM and SCREENSHOT_DIR.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const GUIDE = process.env.GUIDE_URL;
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SHOTS = process.env.SCREENSHOT_DIR || join(import.meta.dirname, 'screenshots');
assert.ok(GUIDE, 'GUIDE_URL must be set (use run.sh)');

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];
const unique = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const email = `oauth-${unique}@example.com`;
const password = 'oauth-password-1';

let browser;
let page;
let app; // the application's redirect endpoint
let redirectURI;
let clientID;
const problems = [];
let shotNo = 0;

async function shot(name) {
  shotNo += 1;
  await page.screenshot({ path: join(SHOTS, `oauth-${String(shotNo).padStart(2, '0')}-${name}.png`), fullPage: true, animations: 'disabled' });
}

async function form(path, params) {
  const res = await fetch(GUIDE + path, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizeURL(challenge, state, scope) {
  return `${GUIDE}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientID, redirect_uri: redirectURI,
    state, code_challenge: challenge, code_challenge_method: 'S256', scope, resource: `${GUIDE}/mcp` })}`;
}

before(async () => {
  app = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Back in the application</title><p>Back in the application.</p>');
  });
  await new Promise((resolve) => app.listen(0, '127.0.0.1', resolve));
  redirectURI = `http://127.0.0.1:${app.address().port}/callback`;
  const reg = await fetch(`${GUIDE}/oauth/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_name: 'Browser test agent', client_uri: 'https://agent.example', redirect_uris: [redirectURI] }) });
  assert.equal(reg.status, 201);
  clientID = (await reg.json()).client_id;
  const signup = await fetch(`${GUIDE}/api/v1/auth/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password, name: 'OAuth Person', role: 'TOURIST' }) });
  assert.equal(signup.status, 201);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  // A 401 before signing in is the page's way to know; CSP breaches and
  // script errors are not.
  page.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (url.hostname !== '127.0.0.1' && !['data:', 'blob:'].includes(url.protocol)) problems.push(`request to ${url.href}`);
  });
});

after(async () => {
  await browser?.close();
  app?.close();
});

async function signIn() {
  await page.locator('#view-signin').waitFor();
  await page.fill('#email', email);
  await page.fill('#password', password);
  await page.click('#signin-form button[type=submit]');
  await page.locator('#view-review').waitFor();
}

let accessToken;

test('the person grants fewer scopes and the application gets a code', async () => {
  const { verifier, challenge } = pkce();
  await page.goto(authorizeURL(challenge, 'state-1', 'packages:read bookings:read bookings:write'));
  assert.match(page.url(), /\/oauth\/consent\/\?request=/);
  await shot('signin');
  await signIn();
  assert.equal(await page.textContent('#client-name'), 'Browser test agent');
  assert.equal(await page.getAttribute('#client-uri', 'href'), 'https://agent.example');
  assert.equal(await page.textContent('#redirect-host'), '127.0.0.1');
  const boxes = await page.$$eval('input[name=scope]', (els) => els.map((e) => [e.value, e.checked]));
  assert.deepEqual(boxes, [['packages:read', true], ['bookings:read', true], ['bookings:write', true]]);
  await page.uncheck('input[name=scope][value="bookings:write"]');
  await shot('review');
  await Promise.all([page.waitForURL((u) => u.href.startsWith(redirectURI)), page.click('#approve')]);
  const back = new URL(page.url());
  assert.equal(back.searchParams.get('state'), 'state-1');
  assert.equal(back.searchParams.get('iss'), GUIDE);
  const tokens = await form('/oauth/token', { grant_type: 'authorization_code', code: back.searchParams.get('code'), client_id: clientID,
    redirect_uri: redirectURI, code_verifier: verifier, resource: `${GUIDE}/mcp` });
  assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
  assert.equal(tokens.body.scope, 'bookings:read packages:read');
  accessToken = tokens.body.access_token;
  const bookings = await fetch(`${GUIDE}/api/v1/bookings`, { headers: { Authorization: `Bearer ${accessToken}` } });
  assert.equal(bookings.status, 200);
});

test('a denial goes back to the application as access_denied', async () => {
  const { challenge } = pkce();
  await page.goto(authorizeURL(challenge, 'state-2', 'profile:read'));
  await signIn();
  await Promise.all([page.waitForURL((u) => u.href.startsWith(redirectURI)), page.click('#deny')]);
  const back = new URL(page.url());
  assert.equal(back.searchParams.get('error'), 'access_denied');
  assert.equal(back.searchParams.get('state'), 'state-2');
});

test('an unknown application is explained to the person, not redirected', async () => {
  await page.goto(`${GUIDE}/oauth/authorize?response_type=code&client_id=nobody&redirect_uri=${encodeURIComponent(redirectURI)}&code_challenge=x&code_challenge_method=S256`);
  await page.locator('#view-error').waitFor();
  assert.match(await page.textContent('#error-text'), /client/i);
  assert.ok(page.url().startsWith(`${GUIDE}/oauth/consent/`));
  await shot('unknown-client');
});

test('the connected-apps page lists the application and revokes it', async () => {
  await page.goto(`${GUIDE}/connected-apps/`);
  await page.locator('#view-signin').waitFor();
  await page.fill('#email', email);
  await page.fill('#password', password);
  await page.click('#signin-form button[type=submit]');
  await page.locator('#view-apps').waitFor();
  const item = page.locator('#apps li');
  assert.equal(await item.count(), 1);
  assert.match(await item.textContent(), /Browser test agent/);
  await shot('connected-apps');
  await item.locator('button.revoke').click();
  await page.locator('#apps-empty').waitFor();
  const res = await fetch(`${GUIDE}/api/v1/bookings`, { headers: { Authorization: `Bearer ${accessToken}` } });
  assert.equal(res.status, 401);
  assert.match(res.headers.get('www-authenticate'), /error="invalid_token"/);
});

test('a developer connects an application on the property server and revokes it in the portal', async () => {
  const PROPERTY = process.env.PROPERTY_URL;
  const dev = { name: 'OAuth Developer', email: `oauth-dev-${unique}@example.com`, password };
  const signup = await fetch(`${PROPERTY}/portal/api/signup`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(dev) });
  assert.equal(signup.status, 201);
  const reg = await fetch(`${PROPERTY}/oauth/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_name: 'Channel manager', redirect_uris: [redirectURI] }) });
  const propertyClient = (await reg.json()).client_id;
  const { challenge } = pkce();
  await page.goto(`${PROPERTY}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: propertyClient, redirect_uri: redirectURI,
    state: 'p1', code_challenge: challenge, code_challenge_method: 'S256', scope: 'properties:read bookings:read' })}`);
  await page.locator('#view-signin').waitFor();
  await page.fill('#email', dev.email);
  await page.fill('#password', password);
  await page.click('#signin-form button[type=submit]');
  await page.locator('#view-review').waitFor();
  assert.equal(await page.textContent('#client-name'), 'Channel manager');
  await Promise.all([page.waitForURL((u) => u.href.startsWith(redirectURI)), page.click('#approve')]);
  assert.ok(new URL(page.url()).searchParams.get('code'));

  await page.goto(`${PROPERTY}/portal/`);
  await page.click('#tab-login');
  await page.fill('#login-email', dev.email);
  await page.fill('#login-password', password);
  await page.click('#login-form button[type=submit]');
  const item = page.locator('#apps li');
  await item.waitFor();
  assert.match(await item.textContent(), /Channel manager/);
  await shot('portal-connected-apps');
  await item.locator('button.revoke').click();
  await page.click('#confirm-ok');
  await page.locator('#apps-empty').waitFor();
});

test('the pages ran without errors', () => {
  assert.deepEqual(problems, []);
});
