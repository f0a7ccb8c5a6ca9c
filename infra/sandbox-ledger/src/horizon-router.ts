/**
 * The subset of Horizon's HTTP API the SDK's Horizon.Server and our code use, plus friendbot, over a
 * SandboxLedger. Mounted by the service at /sandbox/horizon; links carry the prefix the client used.
 */
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { StrKey } from '@stellar/stellar-sdk';
import type { SandboxLedger, SubmitResult } from './ledger';
import type { BalancePageQuery } from './store';
import { badRequestProblem, notFoundProblem, serverErrorProblem, type HorizonProblem, type Json, type PageQuery } from './records';
import { parseAmount } from './amounts';

const send = (res: Response, status: number, body: unknown, type = 'application/hal+json') => {
  res.status(status).type(type).send(JSON.stringify(body));
};
const problem = (res: Response, p: HorizonProblem) => send(res, p.status, p, 'application/problem+json');
const submitted = (res: Response, r: SubmitResult) => (r.ok ? send(res, 200, r.record) : problem(res, r.problem));

/** The base URL of this router as the client addressed it (scheme, host and mount path). */
const baseUrl = (req: Request) => `${req.protocol}://${req.get('host') ?? 'localhost'}${req.baseUrl}`;

const queryString = (req: Request, name: string): string | undefined => {
  const v = (req.query as Record<string, unknown>)[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
};

class BadRequest extends Error {
  constructor(readonly problem: HorizonProblem) {
    super(problem.detail);
  }
}

const limitAndOrder = (req: Request): { limit: number; order: 'asc' | 'desc' } => {
  const limitText = queryString(req, 'limit') ?? '10';
  const order = queryString(req, 'order') ?? 'asc';
  if (!/^\d{1,3}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 200)
    throw new BadRequest(badRequestProblem('limit', 'limit must be an integer between 1 and 200'));
  if (order !== 'asc' && order !== 'desc') throw new BadRequest(badRequestProblem('order', "order must be 'asc' or 'desc'"));
  return { limit: Number(limitText), order };
};

const pageQuery = (req: Request): PageQuery => {
  const cursorText = queryString(req, 'cursor');
  const includeFailed = queryString(req, 'include_failed') ?? 'false';
  if (cursorText !== undefined && !/^\d{1,19}$/.test(cursorText)) throw new BadRequest(badRequestProblem('cursor', 'cursor must be a paging token (a non-negative integer)'));
  const { limit, order } = limitAndOrder(req);
  if (includeFailed !== 'true' && includeFailed !== 'false') throw new BadRequest(badRequestProblem('include_failed', 'include_failed must be true or false'));
  return { cursor: cursorText === undefined ? null : BigInt(cursorText), limit, order, includeFailed: includeFailed === 'true' };
};

/** The claimable balances page query: Horizon's cursor is `<ledger>-<balance id>`. */
const balancePageQuery = (req: Request): BalancePageQuery => {
  const { limit, order } = limitAndOrder(req);
  const cursorText = queryString(req, 'cursor');
  if (cursorText === undefined) return { cursor: null, limit, order };
  const m = /^(\d{1,10})-(?:00000000)?([0-9a-f]{64})$/.exec(cursorText);
  if (!m) throw new BadRequest(badRequestProblem('cursor', 'cursor must be <ledger>-<claimable balance id>'));
  return { cursor: { ledger: Number(m[1]), id: m[2]! }, limit, order };
};

const accountFilter = (req: Request, name: string): string | undefined => {
  const v = queryString(req, name);
  if (v !== undefined && !StrKey.isValidEd25519PublicKey(v)) throw new BadRequest(badRequestProblem(name, 'Account ID must start with `G` and contain 56 alphanum characters'));
  return v;
};

const accountParam = (req: Request): string => {
  const id = String(req.params.id);
  if (!StrKey.isValidEd25519PublicKey(id)) throw new BadRequest(badRequestProblem('account_id', 'Account ID must start with `G` and contain 56 alphanum characters'));
  return id;
};

const hashParam = (req: Request): string => {
  const hash = String(req.params.hash);
  if (!/^[0-9a-fA-F]{64}$/.test(hash)) throw new BadRequest(badRequestProblem('tx_id', 'Transaction hash must be a hex-encoded, lowercase SHA-256 hash'));
  return hash.toLowerCase();
};

const sequenceParam = (req: Request): number => {
  const text = String(req.params.sequence);
  if (!/^\d{1,10}$/.test(text) || Number(text) < 1 || Number(text) > 0xffffffff) throw new BadRequest(badRequestProblem('ledger_id', 'Ledger sequence must be a positive integer'));
  return Number(text);
};

const found = (res: Response, record: Json | null) => (record ? send(res, 200, record) : problem(res, notFoundProblem()));

export interface SandboxHorizonRouterOptions {
  /** Told about unexpected errors (answered as Horizon's server_error problem). */
  onError?: (error: unknown) => void;
}

export function createSandboxHorizonRouter(ledger: SandboxLedger, options: SandboxHorizonRouterOptions = {}): Router {
  const r = express.Router({ strict: false, caseSensitive: true });
  r.use(express.urlencoded({ extended: false, limit: '256kb' }));
  r.use(express.json({ limit: '256kb' }));

  r.get('/', async (req, res) => send(res, 200, await ledger.root(baseUrl(req))));
  r.get('/fee_stats', async (_req, res) => send(res, 200, await ledger.feeStats()));

  const friendbot = async (req: Request, res: Response) => {
    const addr = queryString(req, 'addr') ?? (typeof req.body?.addr === 'string' ? (req.body.addr as string) : undefined);
    if (!addr) return problem(res, badRequestProblem('addr', 'Missing parameter'));
    // `amount` (ours, not Stellar's friendbot): how much of the stablecoin a funded account receives.
    const amountText = queryString(req, 'amount') ?? (typeof req.body?.amount === 'string' ? (req.body.amount as string) : undefined);
    let amount: bigint | undefined;
    if (amountText !== undefined) {
      try {
        amount = parseAmount(amountText);
      } catch {
        return problem(res, badRequestProblem('amount', 'amount must be a decimal with at most 7 decimals'));
      }
    }
    submitted(res, await ledger.friendbot(addr, { baseUrl: baseUrl(req), ...(amount !== undefined ? { amount } : {}) }));
  };
  r.get('/friendbot', friendbot);
  r.post('/friendbot', friendbot);

  r.get('/accounts/:id', async (req, res) => found(res, await ledger.account(accountParam(req), baseUrl(req))));
  r.get('/accounts/:id/data/:key', async (req, res) => {
    const data = await ledger.accountData(accountParam(req), String(req.params.key));
    if (data) send(res, 200, data);
    else problem(res, notFoundProblem());
  });
  r.get('/accounts/:id/transactions', async (req, res) => {
    const account = accountParam(req);
    send(res, 200, await ledger.transactions(pageQuery(req), { account }, baseUrl(req), `/accounts/${account}/transactions`));
  });
  r.get('/accounts/:id/operations', async (req, res) => {
    const account = accountParam(req);
    send(res, 200, await ledger.operations(pageQuery(req), { account }, baseUrl(req), `/accounts/${account}/operations`));
  });
  r.get('/accounts/:id/payments', async (req, res) => {
    const account = accountParam(req);
    send(res, 200, await ledger.operations(pageQuery(req), { account, paymentsOnly: true }, baseUrl(req), `/accounts/${account}/payments`));
  });

  r.post('/transactions', async (req, res) => {
    const tx = typeof req.body?.tx === 'string' ? (req.body.tx as string) : undefined;
    if (!tx) return problem(res, badRequestProblem('tx', 'Missing parameter'));
    submitted(res, await ledger.submit(tx, { baseUrl: baseUrl(req) }));
  });
  r.get('/transactions', async (req, res) => send(res, 200, await ledger.transactions(pageQuery(req), {}, baseUrl(req))));
  r.get('/transactions/:hash', async (req, res) => found(res, await ledger.transaction(hashParam(req), baseUrl(req))));
  r.get('/transactions/:hash/operations', async (req, res) => {
    const hash = hashParam(req);
    send(res, 200, await ledger.operations(pageQuery(req), { transactionHash: hash }, baseUrl(req), `/transactions/${hash}/operations`));
  });
  r.get('/transactions/:hash/payments', async (req, res) => {
    const hash = hashParam(req);
    send(res, 200, await ledger.operations(pageQuery(req), { transactionHash: hash, paymentsOnly: true }, baseUrl(req), `/transactions/${hash}/payments`));
  });

  r.get('/operations', async (req, res) => send(res, 200, await ledger.operations(pageQuery(req), {}, baseUrl(req))));
  r.get('/operations/:id', async (req, res) => {
    const id = String(req.params.id);
    if (!/^\d{1,19}$/.test(id)) return problem(res, badRequestProblem('id', 'Operation id must be an integer'));
    found(res, await ledger.operation(BigInt(id), baseUrl(req)));
  });
  r.get('/payments', async (req, res) => send(res, 200, await ledger.operations(pageQuery(req), { paymentsOnly: true }, baseUrl(req), '/payments')));

  r.get('/claimable_balances', async (req, res) => {
    if (queryString(req, 'asset') !== undefined) return problem(res, badRequestProblem('asset', 'the sandbox filters claimable balances by claimant and sponsor only'));
    const claimant = accountFilter(req, 'claimant');
    const sponsor = accountFilter(req, 'sponsor');
    send(res, 200, await ledger.claimableBalances(balancePageQuery(req), { ...(claimant ? { claimant } : {}), ...(sponsor ? { sponsor } : {}) }, baseUrl(req)));
  });
  r.get('/claimable_balances/:id', async (req, res) => {
    const id = String(req.params.id).toLowerCase();
    if (!/^(00000000)?[0-9a-f]{64}$/.test(id)) return problem(res, badRequestProblem('id', 'Invalid claimable balance ID'));
    found(res, await ledger.claimableBalance(id, baseUrl(req)));
  });

  r.get('/ledgers', async (req, res) => send(res, 200, await ledger.ledgers(pageQuery(req), baseUrl(req))));
  r.get('/ledgers/:sequence', async (req, res) => found(res, await ledger.ledger(sequenceParam(req), baseUrl(req))));
  r.get('/ledgers/:sequence/transactions', async (req, res) => {
    const sequence = sequenceParam(req);
    send(res, 200, await ledger.transactions(pageQuery(req), { ledger: sequence }, baseUrl(req), `/ledgers/${sequence}/transactions`));
  });
  r.get('/ledgers/:sequence/operations', async (req, res) => {
    const sequence = sequenceParam(req);
    send(res, 200, await ledger.operations(pageQuery(req), { ledger: sequence }, baseUrl(req), `/ledgers/${sequence}/operations`));
  });
  r.get('/ledgers/:sequence/payments', async (req, res) => {
    const sequence = sequenceParam(req);
    send(res, 200, await ledger.operations(pageQuery(req), { ledger: sequence, paymentsOnly: true }, baseUrl(req), `/ledgers/${sequence}/payments`));
  });

  // Anything else under the mount point answers as Horizon does, never with the service's own envelope.
  r.use((_req, res) => problem(res, notFoundProblem()));
  r.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof BadRequest) return problem(res, err.problem);
    const status = (err as { status?: number; statusCode?: number }).status ?? (err as { statusCode?: number }).statusCode;
    if (status === 400 || status === 413 || status === 415) return problem(res, { ...badRequestProblem('', 'the request body could not be parsed'), status });
    options.onError?.(err);
    problem(res, serverErrorProblem());
  });
  return r;
}
