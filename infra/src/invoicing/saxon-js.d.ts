// saxon-js ships no types: the one call the validator makes.
declare module 'saxon-js' {
  interface TransformOptions {
    stylesheetInternal: unknown;
    sourceText: string;
    destination: 'serialized';
  }
  interface TransformResult {
    principalResult: string;
  }
  const SaxonJS: { transform(options: TransformOptions, mode: 'sync'): TransformResult };
  export default SaxonJS;
}
