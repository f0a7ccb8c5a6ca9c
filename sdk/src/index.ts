export { createClient, type CagnotteClient, type ClientOptions } from './client';
export { CagnotteError, WebhookVerificationError, type CagnotteErrorCode } from './errors';
export { verifyWebhook, type VerifyOptions, type WebhookHeaders } from './webhooks';
export { createWallet, sandbox, signHash, signXdr, stellar, type CreateWalletOptions, type SandboxWallet } from './stellar';
export { nextPageQuery, type ListIterable, type RequestOptions, type ResultOf, type BodyOf, type QueryOf, type ItemOf } from './operations';
export type { TransportOptions } from './transport';
export type { paths, components } from './generated/schema';
