import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { createSandboxHorizonRouter, type SandboxLedger } from '@cagnotte/sandbox-ledger';
import { onTestTeardown } from './resources';

/** Serves a sandbox ledger's Horizon on an ephemeral loopback port for the run's time; answers its base URL. */
export const serveSandboxHorizon = async (sandbox: SandboxLedger): Promise<string> => {
  const app = express();
  app.use('/sandbox/horizon', createSandboxHorizonRouter(sandbox));
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  onTestTeardown(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/sandbox/horizon`;
};
