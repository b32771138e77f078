// The admin console of the guide server in a real browser: an admin signs
// in, reads an applicant's document, approves the application, hides a
// reported review and finds both actions in the moderation log; a person
// who is not an admin is turned away. The applicant, the document and the
// report are made through the API first. Every step leaves a screenshot
// (admin-NN-*.png) in SCREENSHOT_DIR.
//
// Run through run.sh, which starts the server with ADMIN_EMAILS naming
// ADMIN_EMAIL and sets GUIDE_URL, CHROMIUM and SCREENSHOT_DIR.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const GUIDE = process.env.GUIDE_URL;
const ADMIN_EMAIL = process.env.ADMIN_EMAIL;
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SHOTS = process.env.SCREENSHOT_DIR || join(import.meta.dirname, 'screenshots');
assert.ok(GUIDE && ADMIN_EMAIL, 'GUIDE_URL and ADMIN_EMAIL must be set (use run.sh)');

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];
const unique = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const password = 'console-password-1';

let browser;
let page;
const problems = [];
let shotNo = 0;

async function shot(name) {
  shotNo += 1;
  await page.screenshot({ path: join(SHOTS, `admin-${String(shotNo).padStart(2, '0')}-${name}.png`), fullPage: true, animations: 'disabled' });
}

async function api(method, path, body, token, headers = {}) {
  const init = { method, headers: { ...headers } };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(GUIDE + path, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function signup(email, name) {
  const res = await api('POST', '/api/v1/auth/register', { email, password, name, role: 'TOURIST' });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.token;
}

let application; // the guide's application
let review; // the review reported

before(async () => {
  // The admin's account (its address is in ADMIN_EMAILS), a guide who
  // applies with a document, and a review someone reports.
  await signup(ADMIN_EMAIL, 'Console Admin');
  const guide = await signup(`guide.${unique}@example.com`, 'Hana Sato');
  const handle = `hana-${unique}`.slice(0, 40);
  const applied = await api('POST', '/api/v1/expert-applications', {
    handle, name: 'Hana Sato', bio: { en: 'I grew up in Nara and guide its temples at dawn.' },
    languages: ['ja', 'en'], specialties: ['temples', 'history'], location: { city: 'Nara', countryCode: 'JP' },
    currency: 'JPY', hourlyRate: 5000, timezone: 'Asia/Tokyo', weeklySchedule: {}, socialLinks: {}, messagingEnabled: true,
    statement: 'Licensed national guide since 2018; my licence is attached.',
  }, guide);
  assert.equal(applied.status, 201, JSON.stringify(applied.body));
  application = applied.body.data;
  const form = new FormData();
  form.append('file', new Blob(['%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n'], { type: 'application/pdf' }), 'licence.pdf');
  const doc = await api('POST', `/api/v1/expert-applications/${application.id}/documents`, form, guide);
  assert.equal(doc.status, 201, JSON.stringify(doc.body));

  const reviews = await api('GET', '/api/v1/experts/demo-expert/reviews?pageSize=1');
  review = reviews.body.data[0];
  const reader = await signup(`reader.${unique}@example.com`, 'Reader');
  const reported = await api('POST', '/api/v1/reports', { targetType: 'review', targetId: review.id, reason: 'spam', text: 'Advertises another site.' }, reader);
  assert.equal(reported.status, 201, JSON.stringify(reported.body));

  browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  const context = await browser.newContext({ acceptDownloads: true, timezoneId: 'UTC' });
  page = await context.newPage();
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) problems.push(`console: ${msg.text()}`);
  });
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (!['127.0.0.1', 'localhost'].includes(url.hostname) && !['data:', 'blob:'].includes(url.protocol)) problems.push(`request to ${url.href}`);
  });
});

after(async () => {
  await browser?.close();
});

async function signIn(email) {
  await page.goto(`${GUIDE}/admin/`);
  await page.locator('#view-signin').waitFor();
  await page.fill('#email', email);
  await page.fill('#password', password);
  await page.click('#signin-form button[type=submit]');
}

test('a person who is not an admin is turned away', async () => {
  const res = await page.goto(`${GUIDE}/admin/`);
  assert.match(res.headers()['content-security-policy'], /frame-ancestors 'none'/);
  assert.equal(res.headers()['x-frame-options'], 'DENY');
  await signIn(`reader.${unique}@example.com`);
  await page.locator('#signin-form .form-error:not([hidden])').waitFor();
  assert.match(await page.textContent('#signin-form .form-error'), /not an admin/);
  assert.ok(await page.isHidden('#view-console'));
  await shot('not-an-admin');
});

test('the admin reads the document and approves the application', async () => {
  await signIn(ADMIN_EMAIL);
  await page.locator('#view-console').waitFor();
  const item = page.locator(`#app-list button[data-id="${application.id}"]`);
  await item.waitFor();
  await shot('queue');
  await item.click();
  await page.locator('#app-detail:not([hidden])').waitFor();
  assert.match(await page.textContent('#app-title'), /Hana Sato/);
  assert.match(await page.textContent('#app-statement'), /Licensed national guide/);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#app-docs button')]);
  assert.match(download.suggestedFilename(), /\.pdf$/);
  await shot('application');

  // A rejection needs a reason: the page says so before asking the API.
  await page.click('[data-decision="reject"]');
  assert.match(await page.textContent('#decide-form .form-error'), /reason/);
  await page.click('[data-decision="approve"]');
  await page.locator('#decide-status:has-text("Approved")').waitFor();
  await shot('approved');
  const expert = await api('GET', `/api/v1/experts/${application.profile.handle}`);
  assert.equal(expert.status, 200, 'the approved expert is in the catalogue');
});

test('the admin hides a reported review, and the log shows both actions', async () => {
  await page.click('#tab-reports');
  const report = page.locator('#report-list li.report', { hasText: 'Advertises another site.' });
  await report.waitFor();
  await shot('reports');
  await report.locator('button[data-action="hide"]').click();
  await page.locator('#moderate[open]').waitFor();
  await page.click('#moderate-ok');
  assert.match(await page.textContent('#moderate-form .form-error'), /reason/);
  await page.fill('#moderate-reason', 'Advertising, against the review rules.');
  await page.click('#moderate-ok');
  await page.locator('#moderate[open]').waitFor({ state: 'detached' }).catch(() => {});
  await page.locator('#report-list li.report', { hasText: 'Advertises another site.' }).waitFor({ state: 'detached' });
  const reviews = await api('GET', '/api/v1/experts/demo-expert/reviews?pageSize=100');
  assert.ok(!reviews.body.data.some((r) => r.id === review.id), 'the hidden review left the public list');

  await page.click('#tab-log');
  await page.locator('#log-rows tr', { hasText: 'moderation.hide' }).waitFor();
  await page.locator('#log-rows tr', { hasText: 'application.approve' }).waitFor();
  await shot('log');
  assert.deepEqual(problems, []);
});
