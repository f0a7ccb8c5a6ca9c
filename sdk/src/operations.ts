/**
 * Typed operations from the generated `paths`: one line names a method of the API (`create: op.post('/v1/webhooks')`)
 * and its arguments, body and answer are the document's. Every call goes through openapi-fetch, whose fetch is the
 * transport (auth, idempotency keys, retries); the envelope `{ success, data }` is unwrapped here, a refusal thrown as
 * a CagnotteError.
 */
import type { Client } from 'openapi-fetch';
import type { paths } from './generated/schema';
import { CagnotteError } from './errors';

export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

/** The paths of the document that have `method`. */
export type PathsWith<M extends HttpMethod> = { [P in keyof paths]: paths[P] extends { [K in M]: { responses: unknown } } ? P : never }[keyof paths];
export type OperationAt<P extends keyof paths, M extends HttpMethod> = paths[P] extends { [K in M]: infer O } ? O : never;

type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : never;
type SuccessStatus = 200 | 201 | 202 | 203;
type SuccessBody<O> = O extends { responses: infer R } ? { [S in keyof R]: S extends SuccessStatus ? JsonOf<R[S]> : S extends 204 ? undefined : never }[keyof R] : never;
/** What a call resolves to: the envelope's `data` (undefined for a 204). */
export type ResultOf<O> = SuccessBody<O> extends infer B ? (B extends { data: infer D } ? D : B) : never;
/** The JSON body of an operation (undefined when it takes none). */
export type BodyOf<O> = O extends { requestBody?: infer RB } ? ([NonNullable<RB>] extends [never] ? undefined : JsonOf<NonNullable<RB>>) : undefined;
export type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? ([NonNullable<Q>] extends [never] ? undefined : NonNullable<Q>) : undefined;
/** One of a list's items. */
export type ItemOf<O> = ResultOf<O> extends { items: Array<infer I> } ? I : never;

/** One string per `{param}` of the path, in order. */
export type PathArgs<P extends string> = P extends `${string}{${string}}${infer Rest}` ? [string, ...PathArgs<Rest>] : [];
type BodyArgs<O> = O extends { requestBody: unknown } ? [body: BodyOf<O>] : [body?: BodyOf<O>];

export interface RequestOptions {
  /** Your own key for a POST (default: a random UUID per call, the same on its retries). */
  idempotencyKey?: string;
  /** Another tenant than the client's. */
  tenant?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** `for await (const item of list(...))` walks every page; `page()` is the first page as answered. */
export interface ListIterable<T, Page> extends AsyncIterable<T> {
  page(): Promise<Page>;
  /** Every item (at most `max`, default 10,000: a list is not a dump). */
  toArray(options?: { max?: number }): Promise<T[]>;
}

export type GetMethod<P extends PathsWith<'get'>> = (...args: [...PathArgs<P & string>, query?: QueryOf<OperationAt<P, 'get'>>, options?: RequestOptions]) => Promise<ResultOf<OperationAt<P, 'get'>>>;
export type ListMethod<P extends PathsWith<'get'>> = (
  ...args: [...PathArgs<P & string>, query?: QueryOf<OperationAt<P, 'get'>>, options?: RequestOptions]
) => ListIterable<ItemOf<OperationAt<P, 'get'>>, ResultOf<OperationAt<P, 'get'>>>;
export type BodyMethod<P extends keyof paths, M extends 'post' | 'patch' | 'put'> = (
  ...args: [...PathArgs<P & string>, ...BodyArgs<OperationAt<P, M>>, options?: RequestOptions]
) => Promise<ResultOf<OperationAt<P, M>>>;
/** A document (a PDF, an XML invoice): its bytes. */
export type DownloadMethod<P extends PathsWith<'get'>> = (...args: [...PathArgs<P & string>, query?: QueryOf<OperationAt<P, 'get'>>, options?: RequestOptions]) => Promise<Uint8Array>;
export type DeleteMethod<P extends PathsWith<'delete'>> = (...args: [...PathArgs<P & string>, options?: RequestOptions]) => Promise<ResultOf<OperationAt<P, 'delete'>>>;

type AnyClient = Pick<Client<any>, 'request'>;
type Page = { items?: Array<{ id?: unknown }>; hasMore?: boolean; pagination?: { page: number; hasNext: boolean }; nextCursor?: string | null };
type Query = Record<string, unknown>;

const placeholders = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);

/**
 * The query of the page after `page`, or null at the end. /v1 lists (`hasMore`): `startingAfter` the last item
 * (`endingBefore` the first when walking back). Also the older shapes still in the document: numbered pages
 * (`pagination.hasNext`) and the event feed's cursor (`nextCursor`, until a page comes back empty).
 */
export const nextPageQuery = (page: Page, query: Query): Query | null => {
  const items = page.items ?? [];
  if (typeof page.hasMore === 'boolean') {
    if (!page.hasMore || items.length === 0) return null;
    if (query.endingBefore !== undefined) return { ...query, endingBefore: items[0]!.id };
    return { ...query, startingAfter: items[items.length - 1]!.id };
  }
  if (page.pagination) return page.pagination.hasNext ? { ...query, page: page.pagination.page + 1 } : null;
  if ('nextCursor' in page) return items.length > 0 && page.nextCursor ? { ...query, after: page.nextCursor } : null;
  return null;
};

/** The factory of typed methods over one openapi-fetch client. */
export const operations = (client: AnyClient) => {
  const call = async (method: HttpMethod, path: string, args: unknown[], slot: 'query' | 'body' | 'none', parseAs: 'json' | 'arrayBuffer' = 'json'): Promise<any> => {
    const names = placeholders(path);
    const pathParams = Object.fromEntries(names.map((name, i) => [name, String(args[i])]));
    const rest = args.slice(names.length);
    const payload = slot === 'none' ? undefined : rest[0];
    const options = ((slot === 'none' ? rest[0] : rest[1]) ?? {}) as RequestOptions;
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    if (options.tenant) headers['x-service-tenant'] = options.tenant;
    const { data, error, response } = await client.request(method as any, path as any, {
      params: { path: pathParams, query: slot === 'query' ? (payload ?? undefined) : undefined },
      ...(slot === 'body' && payload !== undefined ? { body: payload } : {}),
      headers,
      ...(options.signal ? { signal: options.signal } : {}),
      parseAs,
    } as any);
    if (!response.ok) throw CagnotteError.fromResponse(response, error);
    if (parseAs === 'arrayBuffer') return new Uint8Array((data as ArrayBuffer | undefined) ?? new ArrayBuffer(0));
    const envelope = data as { success?: boolean; data?: unknown } | undefined;
    if (envelope && typeof envelope === 'object' && envelope.success === false) throw CagnotteError.fromResponse(response, envelope);
    return envelope && typeof envelope === 'object' && 'success' in envelope ? envelope.data : envelope;
  };

  const list = (path: string, args: unknown[]): ListIterable<unknown, unknown> => {
    const names = placeholders(path);
    const head = args.slice(0, names.length);
    const first = (args[names.length] ?? {}) as Query;
    const options = args[names.length + 1];
    const fetchPage = (query: Query) => call('get', path, [...head, query, options], 'query') as Promise<Page>;
    const iterable: ListIterable<unknown, unknown> = {
      page: () => fetchPage(first),
      async *[Symbol.asyncIterator]() {
        for (let query: Query | null = first; query; ) {
          const page = await fetchPage(query);
          yield* page.items ?? [];
          query = nextPageQuery(page, query);
        }
      },
      async toArray({ max = 10_000 } = {}) {
        const out: unknown[] = [];
        for await (const item of iterable) {
          if (out.length >= max) break;
          out.push(item);
        }
        return out;
      },
    };
    return iterable;
  };

  return {
    get: <P extends PathsWith<'get'>>(path: P): GetMethod<P> => ((...args: unknown[]) => call('get', path, args, 'query')) as GetMethod<P>,
    download: <P extends PathsWith<'get'>>(path: P): DownloadMethod<P> => ((...args: unknown[]) => call('get', path, args, 'query', 'arrayBuffer')) as DownloadMethod<P>,
    list: <P extends PathsWith<'get'>>(path: P): ListMethod<P> => ((...args: unknown[]) => list(path, args)) as unknown as ListMethod<P>,
    post: <P extends PathsWith<'post'>>(path: P): BodyMethod<P, 'post'> => ((...args: unknown[]) => call('post', path, args, 'body')) as BodyMethod<P, 'post'>,
    patch: <P extends PathsWith<'patch'>>(path: P): BodyMethod<P, 'patch'> => ((...args: unknown[]) => call('patch', path, args, 'body')) as BodyMethod<P, 'patch'>,
    put: <P extends PathsWith<'put'>>(path: P): BodyMethod<P, 'put'> => ((...args: unknown[]) => call('put', path, args, 'body')) as BodyMethod<P, 'put'>,
    delete: <P extends PathsWith<'delete'>>(path: P): DeleteMethod<P> => ((...args: unknown[]) => call('delete', path, args, 'none')) as DeleteMethod<P>,
  };
};
