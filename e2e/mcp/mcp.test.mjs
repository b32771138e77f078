// End-to-end test of the MCP endpoints with a client this project did not
// write: the official TypeScript SDK over Streamable HTTP. run.sh starts
// the server and sets GUIDE_URL and PROPERTY_URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const GUIDE_URL = process.env.GUIDE_URL;
const PROPERTY_URL = process.env.PROPERTY_URL;

async function rest(base, method, path, body, headers = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

async function connect(url, headers) {
  const client = new Client({ name: 'wayfarer-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url + '/mcp'), { requestInit: { headers } }));
  return client;
}

// structured returns a successful tool call's structured content.
async function call(client, name, args) {
  const res = await client.callTool({ name, arguments: args });
  assert.ok(!res.isError, `${name}: ${JSON.stringify(res.content)}`);
  assert.ok(res.structuredContent, `${name}: no structured content`);
  return res;
}

test('guide: a key without credentials is challenged', async () => {
  const res = await fetch(GUIDE_URL + '/mcp', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  assert.equal(res.status, 401);
  assert.equal(res.headers.get('www-authenticate'), `Bearer resource_metadata="${GUIDE_URL}/.well-known/oauth-protected-resource", ` +
    'scope="bookings:read bookings:write experts:read packages:read profile:read profile:write travelogues:read"');
  assert.equal((await res.json()).error.code, 'UNAUTHORIZED');
  const meta = await rest(GUIDE_URL, 'GET', '/.well-known/oauth-protected-resource');
  assert.equal(meta.body.resource, GUIDE_URL + '/mcp');
});

test('guide: search, book, retry, cancel only with the person\'s confirmation', async () => {
  const email = `mcp-${randomUUID()}@example.com`;
  const reg = await rest(GUIDE_URL, 'POST', '/api/v1/auth/register', { email, password: 'correct-horse-1', name: 'MCP Traveller', role: 'TOURIST' });
  assert.equal(reg.status, 201, JSON.stringify(reg.body));
  const user = { Authorization: `Bearer ${reg.body.token}` };
  const created = await rest(GUIDE_URL, 'POST', '/api/v1/auth/api-keys',
    { name: 'e2e agent', scopes: ['packages:read', 'bookings:read', 'bookings:write'] }, user);
  assert.equal(created.status, 201, JSON.stringify(created.body));

  const client = await connect(GUIDE_URL, { Authorization: `Bearer ${created.body.data.key}` });
  try {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    assert.deepEqual(names, ['cancel_booking', 'create_booking', 'get_booking', 'get_package', 'get_pending_action', 'list_my_bookings', 'search_packages']);
    const cancel = tools.find((t) => t.name === 'cancel_booking');
    assert.equal(cancel.annotations.destructiveHint, true);
    assert.ok(cancel.outputSchema, 'cancel_booking has an output schema');
    assert.equal(tools.find((t) => t.name === 'search_packages').annotations.readOnlyHint, true);

    const found = await call(client, 'search_packages', { pageSize: 2 });
    const pkg = found.structuredContent.data[0];
    assert.ok(pkg.id);
    assert.match(found.content[0].text, /<api-data>\n\{/);

    const when = new Date(Date.now() + 7 * 24 * 3600 * 1000).toISOString();
    const args = { packageId: pkg.id, scheduledDate: when, participants: 2, idempotencyKey: randomUUID() };
    const booked = await call(client, 'create_booking', args);
    const again = await call(client, 'create_booking', args);
    assert.equal(again.structuredContent.data.id, booked.structuredContent.data.id);
    assert.equal(again._meta?.idempotentReplayed, true);

    // Out of scope: the profile tools are neither listed nor callable.
    const refused = await client.callTool({ name: 'get_my_profile', arguments: {} });
    assert.equal(refused.isError, true);
    assert.equal(JSON.parse(refused.content[0].text).error.code, 'INSUFFICIENT_SCOPE');

    const bookingId = booked.structuredContent.data.id;
    const pending = (await call(client, 'cancel_booking', { id: bookingId })).structuredContent;
    assert.equal(pending.status, 'pending');
    assert.equal(pending.confirmUrl, `${GUIDE_URL}/api/v1/actions/${pending.actionId}/confirm`);
    const still = await call(client, 'get_booking', { id: bookingId });
    assert.equal(still.structuredContent.data.status, 'PENDING', 'nothing is cancelled before the person confirms');

    const confirmed = await rest(GUIDE_URL, 'POST', `/api/v1/actions/${pending.actionId}/confirm`, undefined, user);
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    const done = (await call(client, 'get_pending_action', { id: pending.actionId })).structuredContent;
    assert.equal(done.status, 'confirmed');
    assert.equal(done.result.status, 'CANCELLED');
  } finally {
    await client.close();
  }
});

test('property: search, quote, book, cancel with an X-API-KEY', async () => {
  const signup = await rest(PROPERTY_URL, 'POST', '/portal/api/signup',
    { email: `mcp-${randomUUID()}@example.com`, password: 'correct-horse-1', name: 'MCP Integrator' });
  assert.equal(signup.status, 201, JSON.stringify(signup.body));
  const key = await rest(PROPERTY_URL, 'POST', '/portal/api/keys', { name: 'e2e agent', mode: 'test' }, { Authorization: `Bearer ${signup.body.token}` });
  assert.equal(key.status, 201, JSON.stringify(key.body));

  const client = await connect(PROPERTY_URL, { 'X-API-KEY': key.body.key });
  try {
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(names, ['book', 'cancel_booking', 'create_quote', 'get_availability', 'get_booking', 'get_property', 'list_bookings', 'search_properties', 'update_calendar']);

    const day = (n) => new Date(Date.now() + n * 24 * 3600 * 1000).toISOString().slice(0, 10);
    // Some nights are sold out or restricted: try stays until one quotes.
    let quote;
    const found = (await call(client, 'search_properties', { checkIn: day(20), checkOut: day(22), guests: 2, pageSize: 10 })).structuredContent;
    for (const p of found.data) {
      const detail = (await call(client, 'get_property', { id: p.id })).structuredContent;
      for (const rt of detail.roomTypes) {
        const res = await client.callTool({ name: 'create_quote', arguments: {
          propertyId: p.id, roomTypeId: rt.id, checkIn: day(20), checkOut: day(22), guests: 2, idempotencyKey: randomUUID() } });
        if (!res.isError) { quote = res.structuredContent; break; }
      }
      if (quote) break;
    }
    assert.ok(quote, 'no stay could be quoted');

    const bookArgs = { quoteId: quote.id, guest: { firstName: 'Mei', lastName: 'Tan', email: 'mei.tan@example.com' }, idempotencyKey: randomUUID() };
    const booking = (await call(client, 'book', bookArgs)).structuredContent;
    assert.equal(booking.status, 'CONFIRMED');
    assert.equal((await call(client, 'book', bookArgs)).structuredContent.id, booking.id);

    const cancelled = (await call(client, 'cancel_booking', { id: booking.id })).structuredContent;
    assert.equal(cancelled.status, 'CANCELLED');
    const listed = (await call(client, 'list_bookings', { status: 'CANCELLED' })).structuredContent;
    assert.equal(listed.meta.total, 1);
  } finally {
    await client.close();
  }
});

// Every read tool on the sample data: the SDK validates each structured
// result against the tool's output schema, and fails the call otherwise.
test('guide: every read tool answers what its output schema says', async () => {
  const reg = await rest(GUIDE_URL, 'POST', '/api/v1/auth/register',
    { email: `mcp-${randomUUID()}@example.com`, password: 'correct-horse-1', name: 'MCP Reader', role: 'TOURIST' });
  assert.equal(reg.status, 201, JSON.stringify(reg.body));
  const created = await rest(GUIDE_URL, 'POST', '/api/v1/auth/api-keys', { name: 'e2e reader',
    scopes: ['experts:read', 'packages:read', 'travelogues:read', 'bookings:read', 'bookings:write', 'profile:read'] },
  { Authorization: `Bearer ${reg.body.token}` });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const client = await connect(GUIDE_URL, { Authorization: `Bearer ${created.body.data.key}` });
  try {
    const called = new Set();
    const read = async (name, args) => { called.add(name); return (await call(client, name, args)).structuredContent; };
    const experts = await read('search_experts', { pageSize: 100 });
    let withLinks = 0;
    for (const x of experts.data) {
      const got = await read('get_expert', { handle: x.handle });
      if (got.expert.socialLinks && Object.keys(got.expert.socialLinks).length > 0) withLinks++;
    }
    assert.ok(withLinks > 0, 'no expert with social links was read');
    const packages = await read('search_packages', { pageSize: 5 });
    await read('get_package', { id: packages.data[0].id });
    const travelogues = await read('list_travelogues', { pageSize: 5 });
    await read('get_travelogue', { slug: travelogues.data[0].slug });
    await read('get_my_profile', {});
    const when = new Date(Date.now() + 9 * 24 * 3600 * 1000).toISOString();
    const booked = await call(client, 'create_booking', { packageId: packages.data[0].id, scheduledDate: when, idempotencyKey: randomUUID() });
    await read('list_my_bookings', {});
    await read('get_booking', { id: booked.structuredContent.data.id });
    const pending = await call(client, 'cancel_booking', { id: booked.structuredContent.data.id });
    await read('get_pending_action', { id: pending.structuredContent.actionId });
    const reads = (await client.listTools()).tools.filter((t) => t.annotations?.readOnlyHint).map((t) => t.name);
    assert.deepEqual(reads.filter((n) => !called.has(n)), [], 'read tools left unchecked');
  } finally {
    await client.close();
  }
});

test('property: every read tool answers what its output schema says', async () => {
  const signup = await rest(PROPERTY_URL, 'POST', '/portal/api/signup',
    { email: `mcp-${randomUUID()}@example.com`, password: 'correct-horse-1', name: 'MCP Reader' });
  assert.equal(signup.status, 201, JSON.stringify(signup.body));
  const key = await rest(PROPERTY_URL, 'POST', '/portal/api/keys', { name: 'e2e reader', mode: 'test' }, { Authorization: `Bearer ${signup.body.token}` });
  assert.equal(key.status, 201, JSON.stringify(key.body));
  const client = await connect(PROPERTY_URL, { 'X-API-KEY': key.body.key });
  try {
    const called = new Set();
    const read = async (name, args) => { called.add(name); return (await call(client, name, args)).structuredContent; };
    const day = (n) => new Date(Date.now() + n * 24 * 3600 * 1000).toISOString().slice(0, 10);
    const found = await read('search_properties', { checkIn: day(30), checkOut: day(32), guests: 2, pageSize: 10 });
    await read('search_properties', { pageSize: 100 });
    let quote;
    for (const p of found.data) {
      const detail = await read('get_property', { id: p.id });
      await read('get_availability', { id: p.id, from: day(30), to: day(32) });
      for (const rt of detail.roomTypes) {
        const res = await client.callTool({ name: 'create_quote', arguments: {
          propertyId: p.id, roomTypeId: rt.id, checkIn: day(30), checkOut: day(32), guests: 2, idempotencyKey: randomUUID() } });
        if (!res.isError) { quote = res.structuredContent; break; }
      }
      if (quote) break;
    }
    assert.ok(quote, 'no stay could be quoted');
    const booking = (await call(client, 'book', { quoteId: quote.id, guest: { firstName: 'Mei', lastName: 'Tan', email: 'mei.tan@example.com' } })).structuredContent;
    await read('get_booking', { id: booking.id });
    await read('list_bookings', {});
    const reads = (await client.listTools()).tools.filter((t) => t.annotations?.readOnlyHint).map((t) => t.name);
    assert.deepEqual(reads.filter((n) => !called.has(n)), [], 'read tools left unchecked');
  } finally {
    await client.close();
  }
});

test('both: a batch is bounded, a foreign Origin refused, an unknown method -32601', async () => {
  const signup = await rest(PROPERTY_URL, 'POST', '/portal/api/signup',
    { email: `mcp-${randomUUID()}@example.com`, password: 'correct-horse-1', name: 'MCP Batcher' });
  const key = await rest(PROPERTY_URL, 'POST', '/portal/api/keys', { name: 'e2e batcher', mode: 'test' }, { Authorization: `Bearer ${signup.body.token}` });
  const post = (body, headers = {}) => fetch(PROPERTY_URL + '/mcp', { method: 'POST', body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-API-KEY': key.body.key, ...headers } });
  const batch = (n) => Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/list' }));
  let res = await post(batch(21));
  assert.equal(res.status, 400);
  assert.equal((await res.json()).error.code, -32600);
  res = await post(batch(20));
  assert.equal(res.status, 200);
  assert.equal((await res.json()).length, 20);
  assert.ok(res.headers.get('x-ratelimit-remaining'));
  res = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { Origin: 'https://evil.example' });
  assert.equal(res.status, 403);
  assert.equal((await res.json()).jsonrpc, '2.0');
  res = await post({ jsonrpc: '2.0', id: 9, method: 'no/such' });
  assert.equal(res.status, 200);
  const unknown = await res.json();
  assert.equal(unknown.error.code, -32601);
  assert.equal(unknown.id, 9);
});
