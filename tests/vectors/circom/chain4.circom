pragma circom 2.0.0;
// x_{i+1} = x_i * x_i + 7 ; N multiplication constraints
template Chain(n) {
    signal input x;
    signal output y;
    signal s[n+1];
    s[0] <== x;
    for (var i = 0; i < n; i++) {
        s[i+1] <== s[i] * s[i] + 7;
    }
    y <== s[n];
}
component main = Chain(4);
