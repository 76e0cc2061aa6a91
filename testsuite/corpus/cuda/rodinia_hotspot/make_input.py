"""Write the temperature and power files hotspot reads (N*N lines each)."""
import sys

n, out = int(sys.argv[1]), sys.argv[2]
with open(f"{out}/temp_{n}", "w") as temp, open(f"{out}/power_{n}", "w") as power:
    for k in range(n * n):
        i, j = divmod(k, n)
        temp.write(f"{320 + ((i * 7 + j * 13) % 50) / 3:.6f}\n")
        power.write(f"{((i * j) % 17) * 1e-5:.8f}\n")
