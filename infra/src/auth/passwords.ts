import argon2 from 'argon2';

/** argon2id with the library's defaults (64 MiB, t=3): the OWASP-recommended family for password storage. */
export const hashPassword = (password: string): Promise<string> => argon2.hash(password, { type: argon2.argon2id });

export const verifyPassword = async (hash: string, password: string): Promise<boolean> => {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
};

/** A hash of a random password: verifying against it costs the same time as a real one, so unknown users are not told apart. */
let decoy: Promise<string> | null = null;
export const decoyHash = (): Promise<string> => (decoy ??= hashPassword(`decoy-${Math.random()}`));
