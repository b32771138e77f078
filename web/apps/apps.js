// The connected-apps page of the guide API: the applications the person
// connected through OAuth (GET /api/v1/profile/connected-apps), each with
// what it may do and when it last acted, and a Revoke button
// (DELETE /api/v1/profile/connected-apps/{id}). The person signs in here;
// the token lives only in this page's memory.

import { request } from './api.js';

const $ = (sel) => document.querySelector(sel);
let token = null;

function api(method, path, body) {
  return request(method, path, body, token ? { credentials: 'omit', headers: { Authorization: `Bearer ${token}` } } : {});
}

function show(id) {
  for (const v of ['view-signin', 'view-apps']) $(`#${v}`).hidden = v !== id;
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
    token = (await request('POST', '/api/v1/auth/login', { email, password }, { credentials: 'omit' })).token;
    form.password.value = '';
    await load();
  } catch (err) {
    token = null;
    showError(box, err.status === 401 ? new Error('The e-mail or the password is not right.') : err);
  } finally {
    button.disabled = false;
  }
});

async function load() {
  let apps;
  try {
    apps = (await api('GET', '/api/v1/profile/connected-apps')).data;
  } catch (err) {
    if (err.status === 401) {
      show('view-signin');
      return;
    }
    throw err;
  }
  const list = $('#apps');
  list.replaceChildren();
  for (const app of apps) {
    const li = document.createElement('li');
    li.dataset.id = app.id;
    const info = document.createElement('div');
    const name = document.createElement('div');
    name.className = 'app-name';
    name.textContent = app.client.name;
    const meta = document.createElement('div');
    meta.className = 'app-meta';
    const used = app.lastUsedAt ? `last used ${when(app.lastUsedAt)}` : 'not used yet';
    meta.textContent = `${app.client.uri || app.client.id} · may: ${app.scopes.join(', ')} · connected ${when(app.createdAt)}, ${used}`;
    info.append(name, meta);
    const revoke = document.createElement('button');
    revoke.type = 'button';
    revoke.className = 'btn btn-secondary revoke';
    revoke.textContent = 'Revoke';
    revoke.setAttribute('aria-label', `Revoke ${app.client.name}`);
    revoke.addEventListener('click', async () => {
      revoke.disabled = true;
      try {
        await api('DELETE', `/api/v1/profile/connected-apps/${encodeURIComponent(app.id)}`);
        li.remove();
        $('#apps-empty').hidden = list.children.length > 0;
      } catch (err) {
        revoke.disabled = false;
        showError($('#apps-error'), err);
      }
    });
    li.append(info, revoke);
    list.append(li);
  }
  $('#apps-empty').hidden = apps.length > 0;
  show('view-apps');
}

load().catch((err) => {
  show('view-apps');
  showError($('#apps-error'), err);
});
