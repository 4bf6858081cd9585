/** The package ships no types: the functions the decision statistics use (core/stats). */
declare module 'jstat' {
  export const jStat: {
    /** Regularized incomplete beta function I_x(a, b). */
    ibeta(x: number, a: number, b: number): number;
    /** Natural logarithm of the beta function B(a, b). */
    betaln(a: number, b: number): number;
    beta: {
      /** Quantile of Beta(a, b): the x with I_x(a, b) = p. */
      inv(p: number, a: number, b: number): number;
    };
  };
}
