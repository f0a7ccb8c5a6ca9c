import pino from 'pino';
import { requestLogFields } from './http/request-context';

export type Logger = pino.Logger;

/**
 * Structured logs; credentials, tokens and reclaim XDRs never reach them. A line logged while serving a request
 * carries that request's `requestId`, `traceId` and `spanId` (request-context.ts), whoever logs it.
 * `destination`: where lines go (stdout by default; a spec captures them).
 */
export const createLogger = (level: string, name = 'cagnotte', destination?: pino.DestinationStream): Logger => {
  const options: pino.LoggerOptions = {
    name,
    level,
    mixin: requestLogFields,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        '*.password',
        '*.token',
        '*.resetToken',
        '*.signedXdr',
        '*.reclaimXdr',
        '*.secret',
        '*.xdr',
        '*.JWT_SECRET',
        '*.SMTP_URL',
        '*.LEDGER_SIGNING_SECRET',
        '*.PLATFORM_SECRET',
      ],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
};
