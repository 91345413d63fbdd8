// The admin API: JSON over fetch, the CSRF header on writes, If-Match with the version the caller loaded.

/** A failed call: status, the server's message, its field errors and (on 412) the current version. */
export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.error) || `the server answered ${status}`);
    this.status = status;
    this.errors = (body && Array.isArray(body.errors)) ? body.errors : [];
    this.version = body && body.version;
  }
}

export class Api {
  constructor() {
    this.csrf = null;
    /** Called on 401 (login required or the session ended). */
    this.onUnauthorized = () => {};
  }

  async call(method, path, { json, body, type, version } = {}) {
    const headers = { Accept: 'application/json' };
    if (method !== 'GET' && this.csrf) headers['X-Usher-CSRF'] = this.csrf;
    if (version) headers['If-Match'] = `"${version}"`;
    if (json !== undefined) {
      headers['Content-Type'] = 'application/json; charset=utf-8';
      body = JSON.stringify(json);
    } else if (type) {
      headers['Content-Type'] = type;
    }
    let res;
    try {
      res = await fetch(path, { method, headers, body, credentials: 'same-origin', cache: 'no-store' });
    } catch (e) {
      throw new ApiError(0, { error: `cannot reach Usher (${e.message})` });
    }
    const data = (res.headers.get('Content-Type') || '').includes('json') ? await res.json().catch(() => null) : null;
    if (!res.ok) {
      const err = new ApiError(res.status, data);
      if (res.status === 401 && !path.endsWith('/api/login')) this.onUnauthorized(err);
      throw err;
    }
    return data;
  }

  session() { return this.call('GET', '/api/session'); }
  login(password) { return this.call('POST', '/api/login', { json: { password } }); }
  logout() { return this.call('POST', '/api/logout'); }
  sites() { return this.call('GET', '/api/sites'); }
  site(name) { return this.call('GET', `/api/sites/${encodeURIComponent(name)}`); }
  addSite(form, version) { return this.call('POST', '/api/sites', { json: form, version }); }
  saveSite(name, form, version) {
    return this.call('PUT', `/api/sites/${encodeURIComponent(name)}`, { json: form, version });
  }
  deleteSite(name, version) { return this.call('DELETE', `/api/sites/${encodeURIComponent(name)}`, { version }); }
  certificates() { return this.call('GET', '/api/certificates'); }
  streams() { return this.call('GET', '/api/streams'); }
  fleet() { return this.call('GET', '/api/fleet'); }
  renew(name) { return this.call('POST', `/api/certificates/${encodeURIComponent(name)}/renew`); }
  reload() { return this.call('POST', '/api/reload'); }
  config() { return this.call('GET', '/api/config'); }
  restore(file, version) { return this.call('POST', '/api/restore', { body: file, type: 'application/gzip', version }); }
}
