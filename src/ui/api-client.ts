/** The API key lives in session storage only: gone when the tab closes, never put in a URL. */
const KEY_STORAGE = 'engram.apiKey';

export const apiKey = {
  get: (): string | null => sessionStorage.getItem(KEY_STORAGE),
  set: (key: string) => sessionStorage.setItem(KEY_STORAGE, key),
  clear: () => sessionStorage.removeItem(KEY_STORAGE),
};

/** A non-2xx answer, with the server's message (engram `{"error"}` or AMS `{"detail"}` bodies). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Listeners told when a call answers 401, so the app can ask for a key again. */
const unauthorizedListeners = new Set<() => void>();
export const onUnauthorized = (listener: () => void) => {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
};

type Query = Record<string, string | number | boolean | null | undefined | string[]>;

/** `/v1/x` + query: absent and empty values are left out, arrays repeat the key. */
export function urlOf(path: string, query: Query = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
  }
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}

export const headersOf = (extra: Record<string, string> = {}): Record<string, string> => {
  const key = apiKey.get();
  return { ...(key ? { authorization: `Bearer ${key}` } : {}), ...extra };
};

async function errorOf(response: Response): Promise<ApiError> {
  let message = response.statusText || `HTTP ${response.status}`;
  let code: string | null = null;
  try {
    const body = (await response.json()) as { error?: { message?: string; code?: string }; detail?: unknown };
    if (body.error?.message) {
      message = body.error.message;
      code = body.error.code ?? null;
    } else if (typeof body.detail === 'string') message = body.detail;
    else if (Array.isArray(body.detail)) message = body.detail.map((item) => item.msg).join('; ');
  } catch {
    // Not JSON: keep the status text.
  }
  return new ApiError(response.status, message, code);
}

/** Calls the API with the stored key; JSON in and out. */
export async function api<T>(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT',
  path: string,
  options: { query?: Query; body?: unknown } = {},
): Promise<T> {
  const response = await fetch(urlOf(path, options.query), {
    method,
    headers: headersOf(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  if (!response.ok) {
    const error = await errorOf(response);
    if (response.status === 401) for (const listener of unauthorizedListeners) listener();
    throw error;
  }
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** Uploads a text body with progress (fetch cannot report upload progress; XMLHttpRequest can). */
export function upload<T>(
  path: string,
  body: Blob,
  contentType: string,
  onProgress: (fraction: number) => void,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', path);
    for (const [name, value] of Object.entries(headersOf({ 'content-type': contentType }))) {
      request.setRequestHeader(name, value);
    }
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    request.onerror = () =>
      reject(new ApiError(0, 'The upload failed: the server could not be reached', null));
    request.onload = () => {
      const response = new Response(request.responseText, { status: request.status });
      if (request.status >= 200 && request.status < 300) {
        onProgress(1);
        resolve(JSON.parse(request.responseText) as T);
      } else errorOf(response).then(reject, reject);
    };
    request.send(body);
  });
}
