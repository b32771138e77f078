// The realtime chat channel with the official JavaScript client: connect
// with a token from GET /api/realtime/token, subscribe to a conversation,
// receive a message sent over REST, publish a draft and record it with
// realtimeMessageId.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Centrifuge } from 'centrifuge';
import WebSocket from 'ws';

const base = process.env.GUIDE_URL;
const password = process.env.DEMO_PASSWORD;
const wsURL = base.replace(/^http/, 'ws') + '/api/realtime/connection/websocket';

async function api(method, path, token, body) {
  const res = await fetch(base + path, {
    method,
    headers: token ? { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' } : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function login(email) {
  const res = await api('POST', '/api/v1/auth/login', null, { email, password });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.token;
}

// connect opens a client whose token, and each refresh of it, comes from
// the REST endpoint.
function connect(token) {
  const getToken = async () => {
    const res = await api('GET', '/api/realtime/token', token);
    assert.equal(res.status, 200);
    return res.body.token;
  };
  const client = new Centrifuge(wsURL, { websocket: WebSocket, getToken });
  client.connect();
  return client;
}

// nextPublication resolves with the first publication on sub whose data
// passes match.
function nextPublication(sub, match) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no matching publication in 15 s')), 15000);
    const onPub = (ctx) => {
      if (match(ctx.data)) {
        clearTimeout(timer);
        sub.removeListener('publication', onPub);
        resolve(ctx);
      }
    };
    sub.on('publication', onPub);
  });
}

async function subscribed(client, channel) {
  const sub = client.newSubscription(channel);
  const ready = new Promise((resolve, reject) => {
    sub.once('subscribed', resolve);
    // A refusal (103 permission denied) unsubscribes for good.
    sub.once('unsubscribed', (ctx) => reject(new Error(`subscribe ${channel}: ${ctx.code} ${ctx.reason}`)));
  });
  sub.subscribe();
  await ready;
  return sub;
}

test('realtime chat with the centrifuge client', async () => {
  const traveller = await login('traveller@example.com');
  const expert = await login('expert@example.com');
  const opened = await api('POST', '/api/v1/conversations', traveller, { expertHandle: 'demo-expert' });
  assert.ok([200, 201].includes(opened.status), JSON.stringify(opened.body));
  const id = opened.body.data.id;
  const channel = `conversation:${id}`;

  const expertClient = connect(expert);
  const travellerClient = connect(traveller);
  try {
    const expertSub = await subscribed(expertClient, channel);
    const travellerSub = await subscribed(travellerClient, channel);

    // A message recorded over REST reaches the subscriber, as REST answered it.
    const arriving = nextPublication(expertSub, (d) => d.type === 'message' && d.message.content === 'Hello from REST');
    const sent = await api('POST', `/api/v1/conversations/${id}/messages`, traveller, { content: 'Hello from REST' });
    assert.equal(sent.status, 201);
    const got = await arriving;
    assert.deepEqual(got.data.message, sent.body.data);

    // Client first: publish a draft, learn its id from the channel, record it.
    const ref = `ref-${Date.now()}`;
    const draftSeen = nextPublication(travellerSub, (d) => d.type === 'draft' && d.ref === ref);
    await travellerSub.publish({ type: 'draft', content: 'Sent live first', ref });
    const draft = (await draftSeen).data;
    assert.ok(draft.id);
    const recordedLive = nextPublication(expertSub, (d) => d.type === 'message' && d.realtimeMessageId === draft.id);
    const recorded = await api('POST', `/api/v1/conversations/${id}/messages`, traveller, { content: draft.content, realtimeMessageId: draft.id });
    assert.equal(recorded.status, 201, JSON.stringify(recorded.body));
    assert.equal((await recordedLive).data.message.id, recorded.body.data.id);
    const again = await api('POST', `/api/v1/conversations/${id}/messages`, traveller, { content: draft.content, realtimeMessageId: draft.id });
    assert.equal(again.status, 200);
    assert.equal(again.body.data.id, recorded.body.data.id);

    // A stranger to the conversation is refused.
    const admin = await login('admin@example.com');
    const strangerClient = connect(admin);
    try {
      await assert.rejects(subscribed(strangerClient, channel), /subscribe conversation:.*: 103 /);
    } finally {
      strangerClient.disconnect();
    }
  } finally {
    expertClient.disconnect();
    travellerClient.disconnect();
  }
});
