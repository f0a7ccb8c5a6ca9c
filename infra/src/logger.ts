import pino from 'pino';

export type Logger = pino.Logger;

/** Structured logs; credentials, tokens and reclaim XDRs never reach them. */
export const createLogger = (level: string, name = 'cagnotte'): Logger =>
  pino({
    name,
    level,
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
  });
