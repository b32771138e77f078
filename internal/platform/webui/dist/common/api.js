// The guide and property APIs as the pages call them: an answer that is
// not 2xx becomes an ApiError carrying the error envelope's fields.

export class ApiError extends Error {
  constructor(status, body) {
    const e = (body && body.error) || {};
    super(e.message || `The server answered ${status}.`);
    this.status = status;
    this.code = e.code || '';
    this.details = e.details || {};
    this.docUrl = e.doc_url || '';
    this.retryAfter = e.retry_after || 0;
    this.requestId = (body && body.requestId) || '';
  }
}

// request sends one request, with body as JSON when given, and answers
// the JSON body of the answer (null when there is none); a failure to
// connect is an ApiError of status 0. options: credentials (fetch's,
// same-origin when not given) and headers to add.
export async function request(method, path, body, options = {}) {
  const init = {
    method,
    credentials: options.credentials || 'same-origin',
    headers: { Accept: 'application/json', ...options.headers },
  };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch {
    throw new ApiError(0, { error: { message: 'The server cannot be reached. Check your connection and try again.' } });
  }
  let data = null;
  if (res.status !== 204) {
    try { data = await res.json(); } catch { data = null; }
  }
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}
