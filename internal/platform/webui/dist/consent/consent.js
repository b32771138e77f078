// The consent page of both APIs (the same page on each server): where a
// person approves, for some scopes, or denies an application (an AI
// assistant, an agent) that asked to act for them through OAuth.
//
// /oauth/authorize sends the browser here with ?request=<id>, or with
// ?error=&error_description= when the request cannot go back to the
// application. The person signs in (the guide's account, or the portal's on
// the property platform); the token lives only in this page's memory and
// goes only to this origin. GET /oauth/requests/{id} reads the request;
// POST /oauth/requests/{id} records the decision and answers where to send
// the browser back.

import { request } from './api.js';

const $ = (sel) => document.querySelector(sel);

const product = document.querySelector('meta[name=wayfarer-product]').content;
const params = new URLSearchParams(location.search);
const requestId = params.get('request') || '';
let token = null;
let asked = null;

const SCOPES = {
  'experts:read': 'Read the experts in the catalogue',
  'packages:read': 'Read the tour packages in the catalogue',
  'travelogues:read': 'Read travelogues',
  'bookings:read': 'See your bookings',
  'bookings:write': 'Book for you, and ask to cancel (you confirm cancellations yourself)',
  'profile:read': 'See your profile',
  'profile:write': 'Change your profile, and ask to close your account (you confirm it yourself)',
  'events:read': 'Read the change feed and manage webhooks',
  'octo:sell': 'Sell packages as a reseller (OCTO)',
  'properties:read': 'Read listings, availability and prices',
  'properties:write': 'Change your properties',
  'calendar:write': 'Change your properties\u2019 calendars',
};
if (product === 'property') {
  SCOPES['bookings:read'] = 'See the quotes and bookings of your account';
  SCOPES['bookings:write'] = 'Make quotes and bookings, and cancel them';
}

const SIGNIN = product === 'property' ? '/portal/api/login' : '/api/v1/auth/login';

// api calls this server with the person's token once signed in, else with
// the session cookie the browser may already hold.
function api(method, path, body) {
  return request(method, path, body, token ? { credentials: 'omit', headers: { Authorization: `Bearer ${token}` } } : {});
}

function show(id) {
  for (const v of ['view-error', 'view-signin', 'view-review', 'view-done']) $(`#${v}`).hidden = v !== id;
  const title = $(`#${id} h1`);
  if (title) title.focus();
}

function showError(box, err) {
  box.textContent = err ? err.message : '';
  box.hidden = !err;
}

function fail(text) {
  $('#error-text').textContent = text;
  show('view-error');
}

// ---- sign in -------------------------------------------------------------

$('#signin-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const form = ev.currentTarget;
  const box = form.querySelector('.form-error');
  const button = form.querySelector('button[type=submit]');
  const email = form.email.value.trim();
  const password = form.password.value;
  if (!email || password.length < 8) {
    showError(box, new Error('Enter your e-mail and your password (at least 8 characters).'));
    return;
  }
  button.disabled = true;
  showError(box, null);
  try {
    const res = await request('POST', SIGNIN, { email, password }, { credentials: 'omit' });
    token = res.token;
    form.password.value = '';
    await load();
  } catch (err) {
    token = null;
    showError(box, err.status === 401 ? new Error('The e-mail or the password is not right.') : err);
  } finally {
    button.disabled = false;
  }
});

// ---- the request ---------------------------------------------------------

async function load() {
  try {
    asked = (await api('GET', `/oauth/requests/${encodeURIComponent(requestId)}`)).data;
  } catch (err) {
    if (err.status === 401) {
      show('view-signin');
      return;
    }
    if (err.status === 404) {
      fail('This request is unknown, has expired (requests last ten minutes) or was already decided.');
      return;
    }
    fail(err.message);
    return;
  }
  $('#client-name').textContent = asked.client.name;
  const uri = asked.client.uri || '';
  $('#client-site').hidden = !uri;
  if (uri) {
    $('#client-uri').href = uri;
    $('#client-uri').textContent = uri;
  }
  $('#redirect-host').textContent = asked.redirectHost || '';
  const list = $('#scopes');
  list.replaceChildren();
  for (const scope of asked.scopes) {
    const li = document.createElement('li');
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.name = 'scope';
    box.value = scope;
    box.checked = true;
    const text = document.createElement('span');
    const code = document.createElement('code');
    code.textContent = scope;
    const what = document.createElement('span');
    what.className = 'scope-text';
    what.textContent = SCOPES[scope] || '';
    text.append(code, what);
    label.append(box, text);
    li.append(label);
    list.append(li);
  }
  show('view-review');
}

async function decide(approve) {
  const box = $('#review-error');
  const scopes = [...document.querySelectorAll('input[name=scope]:checked')].map((b) => b.value);
  if (approve && scopes.length === 0) {
    showError(box, new Error('Tick at least one permission, or deny the request.'));
    return;
  }
  showError(box, null);
  for (const b of ['#approve', '#deny']) $(b).disabled = true;
  try {
    const res = await api('POST', `/oauth/requests/${encodeURIComponent(requestId)}`, approve ? { approve, scopes } : { approve });
    show('view-done');
    location.assign(res.data.redirectTo);
  } catch (err) {
    for (const b of ['#approve', '#deny']) $(b).disabled = false;
    if (err.status === 404) {
      fail('This request has expired (requests last ten minutes) or was already decided.');
      return;
    }
    showError(box, err);
  }
}

$('#review-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  decide(true);
});
$('#deny').addEventListener('click', () => decide(false));

// ---- start ---------------------------------------------------------------

if (params.get('error')) {
  fail(params.get('error_description') || params.get('error'));
} else if (!/^[A-Za-z0-9]{16,64}$/.test(requestId)) {
  fail('This link is not complete: it should end with ?request= and an id. Start again from the application.');
} else {
  load().catch((err) => fail(err.message));
}
