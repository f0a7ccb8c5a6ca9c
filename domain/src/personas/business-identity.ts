import type { FieldErrors } from '../errors';

export interface BusinessIdentity {
  companyName: string;
  siret: string | null;
  taxCountry: string;
  taxId: string | null;
  rccm: string | null;
}

export interface BusinessIdentityInput {
  companyName?: string | undefined;
  siret?: string | undefined;
  taxCountry?: string | undefined;
  taxId?: string | undefined;
  rccm?: string | undefined;
}

/**
 * DAC7: a company name, plus a SIRET when the business is taxed in France (the default country), or a
 * tax country with a tax id or an RCCM number elsewhere. Answers the identity to record, or field errors.
 */
export const checkBusinessIdentity = (input: BusinessIdentityInput): { identity: BusinessIdentity } | { errors: FieldErrors } => {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  const companyName = input.companyName?.trim();
  if (!companyName) add('companyName', 'companyName is required for a business account');
  const taxCountry = (input.taxCountry ?? (input.siret ? 'FR' : undefined))?.toUpperCase();
  if (!taxCountry) {
    add('siret', 'a SIRET (France) or a taxCountry with a taxId or rccm (other countries) is required');
  } else if (taxCountry === 'FR') {
    if (!input.siret) add('siret', 'a SIRET (14 digits) is required for a business taxed in France');
  } else {
    if (input.siret) add('siret', 'a SIRET applies to France only: give taxCountry FR or a taxId');
    if (!input.taxId && !input.rccm) add('taxId', `a taxId or an rccm is required for a business taxed in ${taxCountry}`);
  }
  if (Object.keys(errors).length > 0) return { errors };
  return {
    identity: {
      companyName: companyName!,
      siret: taxCountry === 'FR' ? input.siret! : null,
      taxCountry: taxCountry!,
      taxId: input.taxId ?? null,
      rccm: input.rccm ?? null,
    },
  };
};
