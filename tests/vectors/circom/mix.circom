pragma circom 2.0.0;
// Exercises the wire mapping: two public outputs, two public inputs, one
// private input, ONE and inputs inside A and B, and (compiled with --O0) a
// linear constraint.
template Mix() {
    signal input a;     // public
    signal input b;     // public
    signal input c;     // private
    signal output out;
    signal output sum;
    signal t;
    t <== (a + 2 * b + 3) * c;
    sum <== a + b + c;
    out <== t * (b - 5);
}
component main {public [a, b]} = Mix();
