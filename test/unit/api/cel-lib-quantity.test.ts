/**
 * api/cel-lib-quantity.ts: kube's quantity CEL library (apiserver pkg/cel/library/quantity.go:
 * its doc examples and quantity_test.go cases), over resource.ParseQuantity (api/quantity.ts).
 */
import { CelCompileError, compileCel } from '../../../src/api/cel';
import { overClaims } from '../../support/cel';

const { run, runError } = overClaims({ cpu: '500m', mem: '1Gi' });

describe('quantity library (kube\'s examples and tests)', () => {
  it.each<[string, unknown]>([
    ['quantity("12Mi") == quantity("12582912")', true],
    ['isQuantity("1.3G")', true],
    ['isQuantity("1.3Gi")', true],
    ['isQuantity("1,3G")', false],
    ['isQuantity("10000k")', true],
    ['isQuantity("200K")', false],
    ['isQuantity("Three")', false],
    // kube's doc says false, but ParseQuantity reads a missing number as 0 (Go's code, kept).
    ['isQuantity("Mi")', true],
    ['isQuantity("20")', true],
    ['isQuantity("20M")', true],
    ['isQuantity("20Mi")', true],
    ['isQuantity("20Mo")', false],
    ['isQuantity("10Mm")', false],
    ['quantity("200M") == quantity("200M")', true],
    ['quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")', true],
    ['quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")', true],
    ['quantity("200M") == quantity("0.3G")', false],
    ['quantity("50M").isLessThan(quantity("50Mi"))', true],
    ['quantity("50M").isLessThan(quantity("100M"))', true],
    ['quantity("100M").isLessThan(quantity("50M"))', false],
    ['quantity("50Mi").isGreaterThan(quantity("50M"))', true],
    ['quantity("150Mi").isGreaterThan(quantity("100Mi"))', true],
    ['quantity("50M").isGreaterThan(quantity("100M"))', false],
    ['quantity("200M").compareTo(quantity("0.2G"))', 0n],
    ['quantity("50M").compareTo(quantity("50Mi"))', -1n],
    ['quantity("50Mi").compareTo(quantity("50M"))', 1n],
    ['quantity("50k").add(quantity("20")) == quantity("50.02k")', true],
    ['quantity("50k").add(20).isLessThan(quantity("50020"))', false],
    ['quantity("50k").add(20) == quantity("50020")', true],
    ['quantity("50k").add("20k") == quantity("70k")', undefined],
    ['quantity("50k").sub(quantity("20")) == quantity("49.98k")', true],
    ['quantity("50k").sub(20) == quantity("49980")', true],
    ['quantity("50k").sub(20000) == quantity("30k")', true],
    ['quantity("50k").add(20).sub(quantity("100k")).asInteger()', -49980n],
    ['quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger()', 20n],
    ['quantity("50k").add(20).sub(quantity("100k")).sub(-50000) == quantity("20")', true],
    ['quantity("50k").asInteger()', 50000n],
    ['quantity("50k").asInteger() == 50000', true],
    ['quantity("9999999999999999999999999999999999999G").isInteger()', false],
    ['quantity("50").isInteger()', true],
    ['quantity("50000000G").isInteger()', true],
    ['quantity("50k").isInteger()', true],
    ['quantity("50.703k").asApproximateFloat()', 50703],
    ['quantity("50k").sub(20000).asApproximateFloat() == 30000.0', true],
    // How Go holds the value decides isInteger: 1.0 is an int64 amount of 10 at scale -1.
    ['quantity("1.0").isInteger()', false],
    ['quantity("1500m").isInteger()', false],
    ['quantity("1Gi").asInteger()', 1073741824n],
    // Eighteen digits parse to an int64 amount, nineteen to an inf.Dec (maxInt64Factors).
    ['quantity("922337203685477580").isInteger()', true],
    ['quantity("9223372036854775807").isInteger()', false],
    ['quantity("900000000000000000").add(quantity("900000000000000000")).isInteger()', true],
    ['quantity("900000000000000000").add(quantity("9000000000000000000m")).isInteger()', false],
    ['quantity("922337203685477580").mul', undefined],
    ['quantity("1e3").asInteger()', 1000n],
    ['quantity("0.1").add(quantity("0.2")).asApproximateFloat()', 0.30000000000000004],
    ['quantity("1n").asApproximateFloat()', 1e-9],
    ['sign(quantity("-5"))', -1n],
    ['sign(quantity("0"))', 0n],
    ['sign(quantity("5m"))', 1n],
    ['quantity(claims.cpu).isLessThan(quantity("1"))', true],
    ['quantity(claims.mem).compareTo(quantity("1024Mi"))', 0n],
  ])('%s', (expression, want) => {
    if (want === undefined) {
      // add() of a string does not type-check (kube: quantity or int only).
      expect(() => compileCel(expression, 'claims')).toThrow(CelCompileError);
      return;
    }
    expect(run(expression)).toEqual(want);
  });

  it('parse errors are resource.ParseQuantity\'s, asInteger\'s is kube\'s', () => {
    expect(runError('quantity("10Mo")')).toBe("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    expect(runError('quantity("10Mm")')).toBe("unable to parse quantity's suffix");
    expect(runError('quantity("200K")')).toBe("unable to parse quantity's suffix");
    expect(runError('quantity("9999999999999999999999999999999999999G").asInteger()')).toBe('cannot convert value to integer');
    expect(runError('quantity("1.5").asInteger()')).toBe('cannot convert value to integer');
  });

  it('types are checked at compile time; sign is a global function in kube 1.32', () => {
    expect(() => compileCel('isQuantity([1, 2, 3])', 'claims')).toThrow("found no matching overload for 'isQuantity' applied to '(list(int))'");
    expect(() => compileCel('quantity("1").sign()', 'claims')).toThrow("found no matching overload for 'sign' applied to 'kubernetes.Quantity.()'");
    expect(() => compileCel('quantity("1") == 1', 'claims')).toThrow("found no matching overload for '_==_' applied to '(kubernetes.Quantity, int)'");
    expect(compileCel('quantity("1").add(1)', 'claims').outputType).toBe('kubernetes.Quantity');
    expect(compileCel('quantity("1").asApproximateFloat()', 'claims').outputType).toBe('double');
  });
});
