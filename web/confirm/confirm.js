// The confirmation page of the guide API: where a person approves what an
// agent, using one of their API keys, asked to do (cancel a booking, close
// the account). MCP clients open it through URL-mode elicitation; any
// agent can show the link.
//
// The person signs in with their password on this page, every time: the
// token lives only in this page's memory and goes only to this origin.
// The page then reads the request (GET /api/v1/actions/{id}), which
// answers only for the account that owns it, and confirms it with
// POST /api/v1/actions/{id}/confirm.

import { request } from './api.js';

const $ = (sel) => document.querySelector(sel);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const actionId = new URLSearchParams(location.search).get('action') || '';
let token = null;
let action = null;

const LABELS = {
  'booking.cancel': 'Cancel a booking',
  'account.delete': 'Close your account',
};

// api calls the guide API with the person's token, never a cookie.
function api(method, path, body) {
  return request(method, path, body, { credentials: 'omit', headers: token ? { Authorization: `Bearer ${token}` } : {} });
}

function show(id) {
  for (const v of ['view-invalid', 'view-signin', 'view-review']) $(`#${v}`).hidden = v !== id;
  const title = $(`#${id} h1`);
  if (title) title.focus();
}

function showError(box, err) {
  box.textContent = err ? err.message : '';
  box.hidden = !err;
}

function when(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

function fact(term, value) {
  const dt = document.createElement('dt');
  dt.textContent = term;
  const dd = document.createElement('dd');
  dd.textContent = value;
  $('#review-facts').append(dt, dd);
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
    const res = await api('POST', '/api/v1/auth/login', { email, password });
    token = res.token;
    form.password.value = '';
    await review();
  } catch (err) {
    token = null;
    showError(box, err.status === 401 ? new Error('The e-mail or the password is not right.') : err);
  } finally {
    button.disabled = false;
  }
});

// ---- the request ---------------------------------------------------------

async function review() {
  try {
    action = (await api('GET', `/api/v1/actions/${actionId}`)).data;
  } catch (err) {
    if (err.status === 404) {
      token = null;
      showError($('#signin-form .form-error'), new Error('This account has no such request. Sign in with the account whose API key asked for it.'));
      return;
    }
    throw err;
  }
  $('#review-title').textContent = LABELS[action.action] || action.action;
  $('#review-facts').replaceChildren();
  if (action.apiKeyId) {
    const keys = await api('GET', '/api/v1/auth/api-keys').then((r) => r.data).catch(() => []);
    const key = keys.find((k) => k.id === action.apiKeyId);
    const only = key && key.confirmation === 'person' ? ', whose requests only you can confirm' : '';
    fact('Asked by', key ? `API key “${key.name}” (${key.keyPrefix}…)${only}` : 'an API key that has since been revoked');
  }
  if (action.action === 'booking.cancel' && action.targetId) {
    try {
      const b = (await api('GET', `/api/v1/bookings/${action.targetId}`)).data;
      const what = (b.package && b.package.title) || (b.expert && (b.expert.name || b.expert.handle)) || 'Booking';
      fact('Booking', what);
      fact('Date', when(b.scheduledDate));
      fact('Participants', String(b.participants));
      fact('Booking status', b.status);
    } catch {
      fact('Booking', action.targetId);
    }
  }
  fact('Asked at', when(action.createdAt));
  fact('Expires', when(action.expiresAt));
  render();
  show('view-review');
}

function render(result) {
  const status = $('#review-status');
  const pending = action.status === 'pending';
  $('#review-actions').hidden = !pending;
  $('#review-fine').hidden = !pending;
  status.className = 'status';
  if (pending) {
    status.textContent = 'Waiting for you. Nothing has happened yet.';
  } else if (action.status === 'confirmed') {
    status.classList.add('ok');
    status.textContent = result || `Confirmed${action.confirmedAt ? ` on ${when(action.confirmedAt)}` : ''}.`;
  } else {
    status.classList.add('gone');
    status.textContent = 'This request expired unconfirmed. Nothing was done.';
  }
}

$('#confirm').addEventListener('click', async () => {
  const button = $('#confirm');
  button.disabled = true;
  showError($('#review-error'), null);
  try {
    const res = (await api('POST', `/api/v1/actions/${actionId}/confirm`)).data;
    action.status = 'confirmed';
    action.confirmedAt = new Date().toISOString();
    const failed = res.result && res.result.ok === false && res.result.error;
    render(failed
      ? `Confirmed, but it could not be done now: ${res.result.error.message}`
      : action.action === 'account.delete' ? 'Done: your account is closed.' : 'Done: the booking is cancelled.');
  } catch (err) {
    if (err.status === 422) {
      // Expired or confirmed meanwhile: show what it is now.
      action = (await api('GET', `/api/v1/actions/${actionId}`).catch(() => ({ data: action }))).data;
      render();
    }
    showError($('#review-error'), err);
  } finally {
    button.disabled = false;
  }
});

$('#leave').addEventListener('click', () => {
  $('#review-actions').hidden = true;
  $('#review-fine').hidden = true;
  const status = $('#review-status');
  status.className = 'status gone';
  status.textContent = `Not confirmed. Nothing happens; the request expires ${when(action.expiresAt)}. You can close this page.`;
});

show(UUID.test(actionId) ? 'view-signin' : 'view-invalid');
