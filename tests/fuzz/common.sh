# Shared by run.sh and long.sh (sourced).  max_len NAME: the largest input
# worth mutating for a harness -- its seeds' sizes (a 2 KiB C1 is 100 KB, a
# Winning 2 KiB vanilla 36 KB, the golden 32 GiB PoSt proof 25 KB, a 2 KiB
# Snap partition 15 KB, a chain-1100 PCE file 27 KB, the parameters.json
# we check downloads against 12.7 KB); beyond that the fuzzer only slows down.
max_len() { case $1 in c1) echo 140000 ;; post) echo 40000 ;; pce) echo 30000 ;; vanilla) echo 26000 ;; snap) echo 24000 ;; paramsjson) echo 16384 ;; *) echo 8192 ;; esac; }
