// The few jStat functions src/significance.ts uses (the package ships no types).
declare module 'jstat' {
  const jStat: {
    studentt: { inv(p: number, dof: number): number; cdf(x: number, dof: number): number };
    normal: { inv(p: number, mean: number, sd: number): number };
    /** Regularized incomplete beta function I_x(a, b). */
    ibeta(x: number, a: number, b: number): number;
  };
  export default jStat;
}
