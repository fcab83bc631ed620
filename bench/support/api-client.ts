/** A minimal HTTPS client for the bench's load: keep-alive sockets, bearer token (or client certificate), raw bodies. */
import https from 'node:https';

/** Where the server is and how to authenticate. */
export interface ApiTarget {
  url: string;
  caCert: string;
  token: string;
  /** Authenticate with this client certificate and key (PEM) instead of the token. */
  clientCert?: { cert: string; key: string };
  /** Headers sent with every request besides the credentials (e.g. Impersonate-User). */
  headers?: Record<string, string>;
}

/** One response: status and the whole body, unparsed. */
export interface ApiResponse {
  status: number;
  body: Buffer;
}

/** Sends requests over one keep-alive agent; never throws on a non-2xx status (the caller checks). */
export class ApiClient {
  readonly agent: https.Agent;

  constructor(
    readonly target: ApiTarget,
    opts: { maxSockets: number },
  ) {
    const cert = target.clientCert ? { cert: target.clientCert.cert, key: target.clientCert.key } : {};
    this.agent = new https.Agent({ keepAlive: true, maxSockets: opts.maxSockets, ca: target.caCert, ...cert });
  }

  /** Sends `method path` with an optional JSON body; resolves with the full response. */
  request(method: string, path: string, body?: unknown): Promise<ApiResponse> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const headers: Record<string, string> = this.target.clientCert
        ? { ...this.target.headers, accept: 'application/json' }
        : { ...this.target.headers, authorization: `Bearer ${this.target.token}`, accept: 'application/json' };
      if (payload) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = String(payload.length);
      }
      const req = https.request(`${this.target.url}${path}`, { method, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** Like request, but throws with the body when the status is not `expected` (or any 2xx). */
  async expect(method: string, path: string, body?: unknown, expected?: number): Promise<ApiResponse> {
    const res = await this.request(method, path, body);
    const ok = expected === undefined ? res.status >= 200 && res.status < 300 : res.status === expected;
    if (!ok) throw new Error(`${method} ${path} → ${res.status}: ${res.body.toString('utf8').slice(0, 500)}`);
    return res;
  }

  close(): void {
    this.agent.destroy();
  }
}
