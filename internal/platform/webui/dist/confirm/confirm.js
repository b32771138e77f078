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

// when formats the moment iso with its time zone named: in the IANA zone
// tz when given (a booking's time is the expert's local time, wherever the
// reader is), else in the browser's zone (when the reader asked or must
// act).
function when(iso, tz) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const opts = { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' };
  let parts;
  try {
    parts = new Intl.DateTimeFormat(undefined, tz ? { ...opts, timeZone: tz } : opts).formatToParts(d);
  } catch {
    return when(iso); // a zone this browser does not know
  }
  const zone = parts.find((p) => p.type === 'timeZoneName');
  const text = parts.filter((p) => p.type !== 'timeZoneName').map((p) => p.value).join('').trim();
  const place = tz && tz.includes('/') ? `${tz.slice(tz.lastIndexOf('/') + 1).replaceAll('_', ' ')} time` : '';
  if (!zone) return place ? `${text} ${place}` : text;
  return place ? `${text} ${place} (${zone.value})` : `${text} ${zone.value}`;
}

const STATUSES = {
  PENDING: 'Requested; the expert has not confirmed it yet',
  CONFIRMED: 'Confirmed by the expert',
  IN_PROGRESS: 'Under way',
  COMPLETED: 'Completed',
  CANCELLED: 'Cancelled',
};

function bookingStatus(b) {
  const label = STATUSES[b.status] || b.status;
  return b.status === 'CANCELLED' && b.cancelledAt ? `${label} on ${when(b.cancelledAt)}` : label;
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

let askedBy = null; // who asked, as shown
let booking = null; // the booking a booking.cancel acts on, as last read
let zone = ''; // the IANA time zone of its expert

// loadBooking reads the booking the action acts on, and the time zone of
// its expert (from the expert's public page) once.
async function loadBooking() {
  if (action.action !== 'booking.cancel' || !action.targetId) return;
  try {
    booking = (await api('GET', `/api/v1/bookings/${action.targetId}`)).data;
  } catch {
    return; // shown by its id
  }
  if (!zone && booking.expert && booking.expert.handle) {
    zone = await api('GET', `/api/v1/experts/${encodeURIComponent(booking.expert.handle)}`)
      .then((r) => r.data.timezone || '', () => '');
  }
}

// renderFacts shows what is asked and the state it is in now.
function renderFacts() {
  $('#review-facts').replaceChildren();
  if (askedBy) fact('Asked by', askedBy);
  if (action.action === 'booking.cancel' && action.targetId) {
    if (booking) {
      const what = (booking.package && booking.package.title) || (booking.expert && (booking.expert.name || booking.expert.handle)) || 'Booking';
      fact('Booking', what);
      fact('Date', when(booking.scheduledDate, zone));
      fact('Participants', String(booking.participants));
      fact('Booking status', bookingStatus(booking));
    } else {
      fact('Booking', action.targetId);
    }
  }
  fact('Asked at', when(action.createdAt));
  if (action.status === 'pending') fact('Expires', when(action.expiresAt));
  else if (action.status === 'confirmed' && action.confirmedAt) fact('Confirmed', when(action.confirmedAt));
  else if (action.status === 'expired') fact('Expired', when(action.expiresAt));
}

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
  askedBy = null;
  if (action.apiKeyId) {
    const keys = await api('GET', '/api/v1/auth/api-keys').then((r) => r.data).catch(() => []);
    const key = keys.find((k) => k.id === action.apiKeyId);
    const only = key && key.confirmation === 'person' ? ', whose requests only you can confirm' : '';
    askedBy = key ? `API key “${key.name}” (${key.keyPrefix}…)${only}` : 'an API key that has since been revoked';
  }
  await loadBooking();
  renderFacts();
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

// refresh reads the action and its booking again, to show the state they
// are in after a confirmation (or after one that came too late).
async function refresh() {
  action = (await api('GET', `/api/v1/actions/${actionId}`).catch(() => ({ data: action }))).data;
  await loadBooking();
  renderFacts();
}

$('#confirm').addEventListener('click', async () => {
  const button = $('#confirm');
  button.disabled = true;
  showError($('#review-error'), null);
  try {
    const res = (await api('POST', `/api/v1/actions/${actionId}/confirm`)).data;
    const failed = res.result && res.result.ok === false && res.result.error;
    action.status = 'confirmed';
    action.confirmedAt = new Date().toISOString();
    // A closed account takes this page's token with it: nothing to read.
    if (action.action === 'account.delete' && !failed) renderFacts();
    else await refresh();
    render(failed
      ? `Confirmed, but it could not be done now: ${res.result.error.message}`
      : action.action === 'account.delete' ? 'Done: your account is closed.' : 'Done: the booking is cancelled.');
  } catch (err) {
    if (err.status === 422) {
      // Expired or confirmed meanwhile: show what it is now.
      await refresh();
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
