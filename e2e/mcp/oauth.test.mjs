// End-to-end test of the MCP endpoints' OAuth 2.1 authorization with a
// client this project did not write: the official TypeScript SDK's OAuth
// client (an OAuthClientProvider given to its Streamable HTTP transport),
// the person signing in and approving on the consent page in headless
// Chromium. For each server whose Protected Resource Metadata names an
// authorization server: a client knowing only the server URL is challenged
// by a bare 401, discovers the authorization server, registers (Dynamic
// Client Registration, then a Client ID Metadata Document served over
// https by this test), is authorized with one scope fewer than it asked
// for, lists tools and runs the booking flow, refreshes when its access
// token is revoked, is refused a reused refresh token and by the other
// server, and fails cleanly after the person revokes the connection.
//
// The person is the sample data's demo account on each server. run.sh
// starts the server and sets GUIDE_URL, PROPERTY_URL, CHROMIUM,
// DEMO_PASSWORD, and CIMD_CERT and CIMD_KEY: the self-signed certificate
// for 127.0.0.1 (and its key) that the server trusts through SSL_CERT_FILE.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHTTPSServer } from 'node:https';
import { chromium } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

const GUIDE_URL = process.env.GUIDE_URL;
const PROPERTY_URL = process.env.PROPERTY_URL;
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const DEMO_PASSWORD = process.env.DEMO_PASSWORD || 'e2e-demo-password';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];

async function rest(base, method, path, body, headers = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

async function form(base, path, params) {
  const res = await fetch(base + path, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

// call returns a successful tool call's structured content.
async function call(client, name, args) {
  const res = await client.callTool({ name, arguments: args });
  assert.ok(!res.isError, `${name}: ${JSON.stringify(res.content)}`);
  assert.ok(res.structuredContent, `${name}: no structured content`);
  return res.structuredContent;
}

// within fails when p has not settled after ms: a revoked client must fail,
// not hang.
function within(p, ms, what) {
  let timer;
  return Promise.race([p, new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms); })])
    .finally(() => clearTimeout(timer));
}

// Provider is the application's OAuthClientProvider, holding what it
// learns in memory; redirectToAuthorization keeps the URL for the test to
// open in the browser.
class Provider {
  constructor(redirectURL, clientMetadataURL) {
    this.redirectURL = redirectURL;
    this.clientMetadataUrl = clientMetadataURL;
    this.client = undefined;
    this.stored = undefined;
    this.verifier = undefined;
    this.authorizationURL = undefined;
    this.lastState = undefined;
    this.invalidated = [];
  }

  get redirectUrl() { return this.redirectURL; }

  get clientMetadata() {
    return { client_name: 'SDK test agent', client_uri: 'https://agent.example', redirect_uris: [this.redirectURL],
      grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }

  state() { this.lastState = randomUUID(); return this.lastState; }
  clientInformation() { return this.client; }
  saveClientInformation(info) { this.client = info; }
  tokens() { return this.stored; }
  saveTokens(tokens) { this.stored = tokens; }
  redirectToAuthorization(url) { this.authorizationURL = url; }
  saveCodeVerifier(v) { this.verifier = v; }
  codeVerifier() { return this.verifier; }
  invalidateCredentials(scope) {
    this.invalidated.push(scope);
    if (scope === 'all' || scope === 'client') this.client = undefined;
    if (scope === 'all' || scope === 'tokens') this.stored = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
  }
}

// The servers under test. Each signs its person in differently and has its
// own booking flow; `drop` is the scope the person withholds and the tool
// that it hides (args: valid arguments for a call that must be refused).
const servers = [
  {
    name: 'guide',
    base: GUIDE_URL,
    email: 'traveller@example.com',
    drop: { scope: 'profile:read', tool: 'get_my_profile', args: {} },
    async personToken() {
      const res = await rest(GUIDE_URL, 'POST', '/api/v1/auth/login', { email: this.email, password: DEMO_PASSWORD });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.token;
    },
    connectedApps: '/api/v1/profile/connected-apps',
    async bookingFlow(client) {
      const pkg = (await call(client, 'search_packages', { pageSize: 2 })).data[0];
      assert.ok(pkg?.id, 'a package is found');
      const when = new Date(Date.now() + 9 * 24 * 3600 * 1000).toISOString();
      const booked = (await call(client, 'create_booking', { packageId: pkg.id, scheduledDate: when, participants: 2, idempotencyKey: randomUUID() })).data;
      const pending = await call(client, 'cancel_booking', { id: booked.id });
      assert.equal(pending.status, 'pending');
      assert.ok(pending.actionId);
      const still = (await call(client, 'get_booking', { id: booked.id })).data;
      assert.equal(still.status, 'PENDING', 'nothing is cancelled before the person confirms');
    },
  },
  {
    name: 'property',
    base: PROPERTY_URL,
    email: 'developer@example.com',
    drop: { scope: 'calendar:write', tool: 'update_calendar', args: { propertyId: '00000000-0000-0000-0000-000000000000', updates: [] } },
    async personToken() {
      const res = await rest(PROPERTY_URL, 'POST', '/portal/api/login', { email: this.email, password: DEMO_PASSWORD });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.token;
    },
    connectedApps: '/portal/api/connected-apps',
    async bookingFlow(client) {
      const day = (n) => new Date(Date.now() + n * 24 * 3600 * 1000).toISOString().slice(0, 10);
      // Some nights are sold out or restricted: try stays until one quotes.
      let quote;
      const found = await call(client, 'search_properties', { checkIn: day(30), checkOut: day(32), guests: 2, pageSize: 10 });
      for (const p of found.data) {
        const detail = await call(client, 'get_property', { id: p.id });
        for (const rt of detail.roomTypes) {
          const res = await client.callTool({ name: 'create_quote', arguments: {
            propertyId: p.id, roomTypeId: rt.id, checkIn: day(30), checkOut: day(32), guests: 2, idempotencyKey: randomUUID() } });
          if (!res.isError) { quote = res.structuredContent; break; }
        }
        if (quote) break;
      }
      assert.ok(quote, 'no stay could be quoted');
      const booking = await call(client, 'book', { quoteId: quote.id, guest: { firstName: 'Mei', lastName: 'Tan', email: 'mei.tan@example.com' }, idempotencyKey: randomUUID() });
      // The property API cancels at once for a key (its bookings are an
      // integrator's, with no person behind a confirmation), and so for a
      // grant: the rule is the key's.
      const cancelled = await call(client, 'cancel_booking', { id: booking.id });
      assert.equal(cancelled.status, 'CANCELLED');
      const after = await call(client, 'get_booking', { id: booking.id });
      assert.equal(after.status, 'CANCELLED');
    },
  },
];

let browser;
let callback; // the application's redirect endpoint
let redirectURL;
let cimd; // serves the client metadata documents over https
let cimdBase;

before(async () => {
  callback = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Back in the application</title><p>Back in the application.</p>');
  });
  await new Promise((resolve) => callback.listen(0, '127.0.0.1', resolve));
  redirectURL = `http://127.0.0.1:${callback.address().port}/callback`;

  if (process.env.CIMD_CERT && process.env.CIMD_KEY) {
    cimd = createHTTPSServer({ cert: readFileSync(process.env.CIMD_CERT), key: readFileSync(process.env.CIMD_KEY) }, (req, res) => {
      const id = cimdBase + req.url;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ client_id: id, client_name: 'SDK metadata agent', client_uri: 'https://agent.example',
        redirect_uris: [redirectURL], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
        token_endpoint_auth_method: 'none' }));
    });
    await new Promise((resolve) => cimd.listen(0, '127.0.0.1', resolve));
    cimdBase = `https://127.0.0.1:${cimd.address().port}`;
  }
  browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
});

after(async () => {
  await browser?.close();
  callback?.close();
  cimd?.close();
});

// recorder is a fetch that notes each request's method, path and status,
// for the transport and its auth calls alike.
function recorder(log) {
  return async (url, init) => {
    const res = await fetch(url, init);
    log.push(`${init?.method ?? 'GET'} ${new URL(url).pathname} ${res.status}`);
    return res;
  };
}

async function connect(server, provider, log) {
  const client = new Client({ name: 'wayfarer-e2e-oauth', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(server.base + '/mcp'), { authProvider: provider, fetch: recorder(log) });
  await client.connect(transport);
  return client;
}

// authorize takes a provider without credentials through the whole flow:
// the bare 401, discovery, registration, the person's consent in the
// browser (withholding one scope), and the code exchange. It returns a
// connected client and the scopes granted.
async function authorize(server, provider, log) {
  const transport = new StreamableHTTPClientTransport(new URL(server.base + '/mcp'), { authProvider: provider, fetch: recorder(log) });
  await assert.rejects(new Client({ name: 'wayfarer-e2e-oauth', version: '1.0.0' }).connect(transport), UnauthorizedError);
  assert.equal(log[0], 'POST /mcp 401', `the first request is challenged: ${log.join(', ')}`);
  assert.ok(log.includes('GET /.well-known/oauth-protected-resource 200'), log.join(', '));
  assert.ok(log.includes('GET /.well-known/oauth-authorization-server 200'), log.join(', '));
  assert.ok(provider.authorizationURL, 'the SDK sends the person to the authorization endpoint');
  const asked = new URL(provider.authorizationURL);
  assert.equal(asked.origin + asked.pathname, server.base + '/oauth/authorize');
  assert.equal(asked.searchParams.get('resource'), server.base + '/mcp');
  assert.equal(asked.searchParams.get('code_challenge_method'), 'S256');

  const page = await browser.newPage();
  try {
    await page.goto(asked.href);
    assert.match(page.url(), /\/oauth\/consent\/\?request=/);
    await page.locator('#view-signin').waitFor();
    await page.fill('#email', server.email);
    await page.fill('#password', DEMO_PASSWORD);
    await page.click('#signin-form button[type=submit]');
    await page.locator('#view-review').waitFor();
    const boxes = await page.$$eval('input[name=scope]', (els) => els.map((e) => [e.value, e.checked]));
    assert.ok(boxes.length > 1, 'the page lists the scopes asked for');
    assert.ok(boxes.every(([, on]) => on), 'every scope asked for is checked');
    const scopes = boxes.map(([s]) => s);
    assert.ok(scopes.includes(server.drop.scope), `${server.drop.scope} is asked for: ${scopes}`);
    await page.uncheck(`input[name=scope][value="${server.drop.scope}"]`);
    await Promise.all([page.waitForURL((u) => u.href.startsWith(redirectURL)), page.click('#approve')]);
    const back = new URL(page.url());
    assert.equal(back.searchParams.get('state'), provider.lastState);
    assert.equal(back.searchParams.get('iss'), server.base);
    await transport.finishAuth(back.searchParams.get('code'));
    assert.ok(provider.tokens()?.access_token, 'the SDK holds an access token');
    assert.ok(provider.tokens()?.refresh_token, 'and a refresh token');
    return scopes.filter((s) => s !== server.drop.scope);
  } finally {
    await page.close();
  }
}

// revokeAccessToken revokes the provider's access token (RFC 7009), so that
// the next call is refused and the SDK must refresh.
async function revokeAccessToken(server, provider) {
  const res = await form(server.base, '/oauth/revoke', { token: provider.tokens().access_token, client_id: provider.client.client_id });
  assert.equal(res.status, 200);
}

// refreshes checks that the SDK, its access token revoked, refreshes and
// carries on; it returns the refresh token it gave up.
async function refreshes(server, provider, client, log) {
  const before = provider.tokens();
  await revokeAccessToken(server, provider);
  const bare = await fetch(server.base + '/mcp', { method: 'POST',
    headers: { Authorization: `Bearer ${before.access_token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
  assert.equal(bare.status, 401);
  assert.match(bare.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  log.length = 0;
  const { tools } = await within(client.listTools(), 15000, 'tools/list after the access token was revoked');
  assert.ok(tools.length > 0);
  assert.ok(log.includes('POST /oauth/token 200'), `the SDK refreshed: ${log.join(', ')}`);
  const after = provider.tokens();
  assert.notEqual(after.access_token, before.access_token);
  assert.notEqual(after.refresh_token, before.refresh_token, 'the refresh token rotates');
  return before.refresh_token;
}

async function personRevokes(server, provider) {
  const headers = { Authorization: `Bearer ${await server.personToken()}` };
  const list = await rest(server.base, 'GET', server.connectedApps, undefined, headers);
  assert.equal(list.status, 200, JSON.stringify(list.body));
  const app = list.body.data.find((a) => a.client.id === provider.client.client_id);
  assert.ok(app, `the connection is listed: ${JSON.stringify(list.body.data)}`);
  const gone = await rest(server.base, 'DELETE', `${server.connectedApps}/${app.id}`, undefined, headers);
  assert.equal(gone.status, 200, JSON.stringify(gone.body));
}

// checkTools checks what the grant shows and refuses: the withheld scope's
// tool is not listed, and a call to it is refused over HTTP with the
// insufficient_scope challenge naming the scope (unlike a key's call, which
// the tool answers), on which the SDK fails the call, not hangs.
async function checkTools(server, provider, client, granted) {
  const names = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(names.includes('cancel_booking'), `the booking tools are listed: ${names}`);
  assert.ok(!names.includes(server.drop.tool), `${server.drop.tool} is hidden without ${server.drop.scope}: ${names}`);
  assert.ok(!granted.includes(server.drop.scope));

  const res = await fetch(server.base + '/mcp', { method: 'POST',
    headers: { Authorization: `Bearer ${provider.tokens().access_token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: server.drop.tool, arguments: server.drop.args } }) });
  assert.equal(res.status, 403);
  const challenge = res.headers.get('www-authenticate') ?? '';
  assert.match(challenge, /error="insufficient_scope"/);
  assert.match(challenge, new RegExp(`scope="${server.drop.scope}"`));
  assert.match(challenge, new RegExp(`resource_metadata="${server.base}/.well-known/oauth-protected-resource"`));
  // The SDK (1.32.2) answers the challenge by refreshing, which cannot widen
  // the grant, then gives up on the same challenge.
  const refused = await within(client.callTool({ name: server.drop.tool, arguments: server.drop.args }).then(
    () => assert.fail(`${server.drop.tool} answered without ${server.drop.scope}`), (err) => err), 15000, `${server.drop.tool} without its scope`);
  assert.ok(refused instanceof StreamableHTTPError, String(refused));
  assert.equal(refused.code, 403);
}

for (const server of servers) {
  // The property server joins when its metadata names an authorization server.
  // Both servers name their authorization server; a server that stops
  // doing so fails here rather than skipping the flow.
  const oauthReady = async () => {
    const prm = await rest(server.base, 'GET', '/.well-known/oauth-protected-resource');
    assert.equal(prm.status, 200);
    assert.deepEqual(prm.body.authorization_servers, [server.base]);
  };

  test(`${server.name}: Dynamic Client Registration, consent, booking flow, refresh, the person revokes`, async () => {
    await oauthReady();
    const log = [];
    const provider = new Provider(redirectURL);
    const granted = await authorize(server, provider, log);
    assert.ok(log.includes('POST /oauth/register 201'), `the SDK registered: ${log.join(', ')}`);
    assert.ok(provider.client.client_id && !provider.client.client_id.startsWith('https:'));

    const client = await connect(server, provider, log);
    try {
      await checkTools(server, provider, client, granted);
      await server.bookingFlow(client);
      await refreshes(server, provider, client, log);
      await server.bookingFlow(client);

      await personRevokes(server, provider);
      provider.authorizationURL = undefined;
      log.length = 0;
      await within(assert.rejects(client.listTools(), UnauthorizedError), 15000, 'tools/list after the person revoked the connection');
      assert.ok(provider.invalidated.includes('tokens'), `the SDK dropped its tokens: ${provider.invalidated}`);
      assert.ok(provider.authorizationURL, 'the SDK asks the person again');
      assert.ok(log.includes('POST /oauth/token 400'), `the refresh was refused: ${log.join(', ')}`);
    } finally {
      await client.close();
    }
  });

  test(`${server.name}: Client ID Metadata Document, consent, booking flow, refresh, a reused refresh token`, async () => {
    await oauthReady();
    assert.ok(cimdBase, 'CIMD_CERT and CIMD_KEY must be set (use run.sh)');
    const log = [];
    const provider = new Provider(redirectURL, `${cimdBase}/clients/${server.name}-agent.json`);
    const granted = await authorize(server, provider, log);
    assert.ok(!log.some((l) => l.startsWith('POST /oauth/register')), `no registration: ${log.join(', ')}`);
    assert.equal(provider.client.client_id, `${cimdBase}/clients/${server.name}-agent.json`);

    const client = await connect(server, provider, log);
    try {
      await checkTools(server, provider, client, granted);
      await server.bookingFlow(client);

      // The token is bound to this server's /mcp (RFC 8707): the other refuses it.
      const other = servers.find((s) => s !== server);
      const foreign = await fetch(other.base + '/mcp', { method: 'POST',
        headers: { Authorization: `Bearer ${provider.tokens().access_token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
      assert.equal(foreign.status, 401);

      const old = await refreshes(server, provider, client, log);

      // Reusing the refresh token given up is refused, and revokes the chain.
      const reused = await form(server.base, '/oauth/token', { grant_type: 'refresh_token', refresh_token: old,
        client_id: provider.client.client_id, resource: server.base + '/mcp' });
      assert.equal(reused.status, 400, JSON.stringify(reused.body));
      assert.equal(reused.body.error, 'invalid_grant');
      const current = await form(server.base, '/oauth/token', { grant_type: 'refresh_token', refresh_token: provider.tokens().refresh_token,
        client_id: provider.client.client_id, resource: server.base + '/mcp' });
      assert.equal(current.status, 400, JSON.stringify(current.body));
      assert.equal(current.body.error, 'invalid_grant');
    } finally {
      await client.close();
    }
  });
}
