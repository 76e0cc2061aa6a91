/*
 * histogram.c -- per-frame image statistics: for each frame the device
 * applies a gain/offset to a generated 8-bit image, then computes a 256-bin
 * histogram (atomics into a stack array), the pixel sum and the maximum
 * (scalar reductions).  The host resets the histogram before each frame and
 * derives an Otsu threshold from it; a last kernel counts the pixels above
 * the final threshold.
 *
 * EXPERT mapping: the image is sent once and the processed frame never
 * leaves the device (alloc); per frame only the histogram (to after the host
 * reset, from before Otsu) and the reduction scalars travel.
 *
 * Usage: histogram [width] [height] [frames]
 */
#include <stdio.h>
#include <stdlib.h>

#define NBINS 256

static unsigned char *generate_image(int w, int h)
{
    unsigned char *img = (unsigned char *)malloc((size_t)w * h);
    if (!img)
        return NULL;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            img[y * w + x] = (unsigned char)(((x * x + y * 3) / 7 + (x ^ y)) & 0xff);
    return img;
}

static int otsu(const int *hist, long total)
{
    long sum = 0;
    for (int b = 0; b < NBINS; b++)
        sum += (long)b * hist[b];
    long wb = 0, sumb = 0;
    double best = -1.0;
    int threshold = 0;
    for (int b = 0; b < NBINS; b++) {
        wb += hist[b];
        if (wb == 0 || wb == total)
            continue;
        sumb += (long)b * hist[b];
        double mb = (double)sumb / wb, mf = (double)(sum - sumb) / (total - wb);
        double between = (double)wb * (total - wb) * (mb - mf) * (mb - mf);
        if (between > best) {
            best = between;
            threshold = b;
        }
    }
    return threshold;
}

int main(int argc, char **argv)
{
    int width = 640, height = 480, frames = 8;
    if (argc > 1) width = atoi(argv[1]);
    if (argc > 2) height = atoi(argv[2]);
    if (argc > 3) frames = atoi(argv[3]);
    int npix = width * height;
    unsigned char *img = generate_image(width, height);
    unsigned char *out = (unsigned char *)malloc(npix);
    if (npix <= 0 || frames < 1 || !img || !out) {
        fprintf(stderr, "usage: %s [width] [height] [frames]\n", argv[0]);
        return 1;
    }
    int hist[NBINS];
    int threshold = 128;
#pragma omp target data map(to: img[0:npix]) map(alloc: out[0:npix], hist[0:NBINS])
    {
    for (int f = 0; f < frames; f++) {
        int gain = 1 + f % 3, offset = 16 * f;
#pragma omp target teams distribute parallel for
        for (int i = 0; i < npix; i++) {
            int v = img[i] * gain / 2 + offset;
            out[i] = (unsigned char)(v > 255 ? 255 : v);
        }

        for (int b = 0; b < NBINS; b++)
            hist[b] = 0;
#pragma omp target update to(hist[0:NBINS])
        long sum = 0;
        int vmax = 0;
#pragma omp target teams distribute parallel for reduction(+: sum) reduction(max: vmax)
        for (int i = 0; i < npix; i++) {
            int v = out[i];
#pragma omp atomic update
            hist[v]++;
            sum += v;
            vmax = v > vmax ? v : vmax;
        }
#pragma omp target update from(hist[0:NBINS])
        threshold = otsu(hist, npix);
        printf("frame %d: mean %.4f max %3d bins[0] %6d bins[255] %6d otsu %3d\n", f,
               (double)sum / npix, vmax, hist[0], hist[NBINS - 1], threshold);
    }

    long above = 0;
#pragma omp target teams distribute parallel for reduction(+: above)
    for (int i = 0; i < npix; i++)
        above += out[i] > threshold;
    printf("pixels above %d in the last frame: %ld of %d\n", threshold, above, npix);
    }
    free(img);
    free(out);
    return 0;
}
