/*
 * conditional_kernel.c -- an iterative 8-bit image filter pipeline whose
 * stages are switched on and off by command-line options.
 *
 * Each iteration blurs the image (3x3 box filter into a scratch buffer),
 * then EITHER sharpens it (img += (img - blur) / 2) OR replaces it by the
 * blur, depending on `sharpen`.  Two more kernels only run under a condition:
 *   if (opt.threshold > 0 && it % 3 == 0)  { saturate bright pixels }
 *   if (opt.stats_every > 0 && it % opt.stats_every == 0)
 *                                           { min/max/sum reduction }
 * and when the statistics are printed, the host also checksums the middle
 * row of the image.  At the end the host builds a histogram of all pixels.
 * Everything is integer arithmetic, so results are exact.
 *
 * Mapping style: naive.  Every kernel maps both buffers tofrom.
 *
 * Usage: conditional_kernel [width] [height] [iters] [threshold] [stats_every] [sharpen]
 */
#include <stdio.h>
#include <stdlib.h>

struct Options {
    int width, height, iters;
    int threshold;      /* 0: no saturation stage          */
    int stats_every;    /* 0: no statistics                */
    int sharpen;        /* 0: plain blur, 1: unsharp step  */
};

static struct Options parse_options(int argc, char **argv)
{
    struct Options o = {384, 256, 12, 200, 4, 1};
    if (argc > 1) o.width = atoi(argv[1]);
    if (argc > 2) o.height = atoi(argv[2]);
    if (argc > 3) o.iters = atoi(argv[3]);
    if (argc > 4) o.threshold = atoi(argv[4]);
    if (argc > 5) o.stats_every = atoi(argv[5]);
    if (argc > 6) o.sharpen = atoi(argv[6]);
    return o;
}

int main(int argc, char **argv)
{
    const struct Options opt = parse_options(argc, argv);
    const int w = opt.width, h = opt.height;
    if (w < 8 || h < 8 || opt.iters < 1 || opt.threshold < 0 || opt.stats_every < 0) {
        fprintf(stderr, "usage: %s [w>=8] [h>=8] [iters>=1] [threshold>=0] [stats_every>=0] [sharpen]\n",
                argv[0]);
        return 1;
    }
    const size_t npix = (size_t)w * (size_t)h;
    int *img = (int *)malloc(npix * sizeof(int));
    int *tmp = (int *)malloc(npix * sizeof(int));
    if (!img || !tmp) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }

    /* a test card: gradients, a bright square and some texture */
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            int v = (x * 255) / (w - 1) / 2 + (y * 255) / (h - 1) / 4 + ((x * 7 + y * 13) % 23);
            if (x > w / 3 && x < w / 2 && y > h / 3 && y < h / 2)
                v = 250;
            img[(size_t)y * w + x] = v > 255 ? 255 : v;
        }

    for (int it = 1; it <= opt.iters; ++it) {
        /* 3x3 box blur with clamped borders: img -> tmp */
        #pragma omp target teams distribute parallel for collapse(2) \
                map(tofrom: img[0:npix], tmp[0:npix])
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                int s = 0;
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dx = -1; dx <= 1; ++dx) {
                        int yy = y + dy < 0 ? 0 : (y + dy >= h ? h - 1 : y + dy);
                        int xx = x + dx < 0 ? 0 : (x + dx >= w ? w - 1 : x + dx);
                        s += img[(size_t)yy * w + xx];
                    }
                tmp[(size_t)y * w + x] = s / 9;
            }

        if (opt.sharpen) {
            #pragma omp target teams distribute parallel for map(tofrom: img[0:npix], tmp[0:npix])
            for (size_t k = 0; k < npix; ++k) {
                int v = img[k] + (img[k] - tmp[k]) / 2;
                img[k] = v < 0 ? 0 : (v > 255 ? 255 : v);
            }
        } else {
            #pragma omp target teams distribute parallel for map(tofrom: img[0:npix], tmp[0:npix])
            for (size_t k = 0; k < npix; ++k)
                img[k] = tmp[k];
        }

        /* optional stage: saturate the bright pixels every third iteration */
        if (opt.threshold > 0 && it % 3 == 0) {
            const int thr = opt.threshold;
            #pragma omp target teams distribute parallel for map(tofrom: img[0:npix])
            for (size_t k = 0; k < npix; ++k)
                if (img[k] > thr)
                    img[k] = 255;
        }

        /* optional statistics, with a host checksum of the middle row */
        if (opt.stats_every > 0 && it % opt.stats_every == 0) {
            int lo = 255, hi = 0;
            long sum = 0;
            #pragma omp target teams distribute parallel for \
                    reduction(min:lo) reduction(max:hi) reduction(+:sum) map(tofrom: img[0:npix])
            for (size_t k = 0; k < npix; ++k) {
                lo = img[k] < lo ? img[k] : lo;
                hi = img[k] > hi ? img[k] : hi;
                sum += img[k];
            }
            long row = 0;
            const int *mid = img + (size_t)(h / 2) * w;
            for (int x = 0; x < w; ++x)
                row += (long)(x % 7 + 1) * mid[x];
            printf("iter %3d  min %3d  max %3d  mean %.4f  mid-row checksum %ld\n",
                   it, lo, hi, (double)sum / (double)npix, row);
        }
    }

    /* host histogram of the final image */
    long hist[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (size_t k = 0; k < npix; ++k)
        hist[img[k] / 32] += 1;
    printf("conditional_kernel: %dx%d iters=%d threshold=%d stats_every=%d sharpen=%d\n",
           w, h, opt.iters, opt.threshold, opt.stats_every, opt.sharpen);
    printf("histogram (32-wide bins):");
    for (int b = 0; b < 8; ++b)
        printf(" %ld", hist[b]);
    printf("\nimg[0] = %d  img[h/2][w/2] = %d  img[last] = %d\n",
           img[0], img[(size_t)(h / 2) * w + w / 2], img[npix - 1]);

    free(img);
    free(tmp);
    return 0;
}
