/*
 * backprop_layer.c -- EXPERT mapping (reference for s2s omp).
 *
 * Same program as backprop_layer.c.  input, w and oldw (calloc zeros, read
 * by the momentum term) go to the device once and stay for all epochs.
 * Per epoch only what the host layer needs travels: hidden comes out of
 * kernel 1 (written whole there, never read on the device before) and
 * delta goes into kernel 2.  At the end only the printed weights come
 * back: the bias row w[n_in][0:N_HID] (the printed entries span it) and
 * two single weights.
 *
 * The original program: training a two-layer perceptron (after Rodinia's
 * backprop): the wide input->hidden layer runs on the device, the tiny
 * hidden->output layer and the error terms on the host.
 *
 * Per epoch:
 *   kernel 1  forward layer: hidden[j] = squash(sum_i input[i] * w[i][j])
 *   host      output layer, output error, hidden deltas (reads hidden,
 *             writes delta)
 *   kernel 2  weight update with momentum:
 *             dw = ETA * delta[j] * input[i] + MOMENTUM * oldw[i][j]
 *             w[i][j] += dw;  oldw[i][j] = dw
 * After training the host prints only a few weights: the bias row of the
 * input layer and two single weights -- a partial read-back of w.
 *
 * Usage: backprop_layer [n_in] [epochs]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N_HID 16
#define N_OUT 2
#define ETA 0.3
#define MOMENTUM 0.3

static double squash(double x)
{
    return 1.0 / (1.0 + exp(-x));
}

int main(int argc, char **argv)
{
    int n_in = 8192, epochs = 8;
    if (argc > 1) n_in = atoi(argv[1]);
    if (argc > 2) epochs = atoi(argv[2]);
    if (n_in < 8 || epochs < 1) {
        fprintf(stderr, "usage: %s [n_in>=8] [epochs>=1]\n", argv[0]);
        return 1;
    }

    const int rows = n_in + 1;                    /* last input is the bias unit */
    const size_t nw = (size_t)rows * N_HID;
    double *input = (double *)malloc((size_t)rows * sizeof(double));
    double *w = (double *)malloc(nw * sizeof(double));         /* rows x N_HID */
    double *oldw = (double *)calloc(nw, sizeof(double));       /* momentum     */
    double *hidden = (double *)malloc(N_HID * sizeof(double));
    double *delta = (double *)malloc(N_HID * sizeof(double));
    double w2[N_HID + 1][N_OUT];                  /* hidden->output, host only */
    double target[N_OUT] = {0.875, 0.125};
    if (!input || !w || !oldw || !hidden || !delta) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }

    for (int i = 0; i < n_in; ++i)
        input[i] = (double)((i * 7) % 17 - 8) / 256.0;
    input[n_in] = 1.0;
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < N_HID; ++j)
            w[(size_t)i * N_HID + j] = (double)((i * 31 + j * 17) % 97 - 48) / 65536.0;
    for (int j = 0; j <= N_HID; ++j)
        for (int k = 0; k < N_OUT; ++k)
            w2[j][k] = (double)((j * 5 + k * 3) % 11 - 5) / 8.0;

    #pragma omp target data map(to: input[0:rows], w[0:nw], oldw[0:nw])
    {
        for (int epoch = 1; epoch <= epochs; ++epoch) {
            /* kernel 1: forward input -> hidden (one serial dot product per unit) */
            #pragma omp target teams distribute parallel for map(from: hidden[0:N_HID])
            for (int j = 0; j < N_HID; ++j) {
                double sum = 0.0;
                for (int i = 0; i < rows; ++i)
                    sum += input[i] * w[(size_t)i * N_HID + j];
                hidden[j] = squash(sum);
            }

            /* host: output layer, errors and hidden deltas */
            double out[N_OUT], dout[N_OUT], err = 0.0;
            for (int k = 0; k < N_OUT; ++k) {
                double s = w2[N_HID][k];              /* hidden bias */
                for (int j = 0; j < N_HID; ++j)
                    s += hidden[j] * w2[j][k];
                out[k] = squash(s);
                dout[k] = out[k] * (1.0 - out[k]) * (target[k] - out[k]);
                err += fabs(dout[k]);
            }
            for (int j = 0; j < N_HID; ++j) {
                double s = 0.0;
                for (int k = 0; k < N_OUT; ++k)
                    s += dout[k] * w2[j][k];
                delta[j] = hidden[j] * (1.0 - hidden[j]) * s;
            }
            for (int k = 0; k < N_OUT; ++k) {
                for (int j = 0; j < N_HID; ++j)
                    w2[j][k] += ETA * dout[k] * hidden[j];
                w2[N_HID][k] += ETA * dout[k];
            }

            /* kernel 2: adjust the input -> hidden weights */
            #pragma omp target teams distribute parallel for collapse(2) map(to: delta[0:N_HID])
            for (int i = 0; i < rows; ++i)
                for (int j = 0; j < N_HID; ++j) {
                    size_t ij = (size_t)i * N_HID + j;
                    double dw = ETA * delta[j] * input[i] + MOMENTUM * oldw[ij];
                    w[ij] += dw;
                    oldw[ij] = dw;
                }

            printf("epoch %2d  out = (%.6e, %.6e)  error %.6e  hidden[0] %.6e\n",
                   epoch, out[0], out[1], err, hidden[0]);
        }

        /* only the weights printed below */
        #pragma omp target update from(w[(size_t)n_in * N_HID:N_HID])
        #pragma omp target update from(w[0:1])
        #pragma omp target update from(w[(size_t)(n_in / 2) * N_HID + 5:1])
    }

    /* partial read-back: the bias row and two single weights */
    printf("backprop_layer: n_in=%d hidden=%d epochs=%d\n", n_in, N_HID, epochs);
    printf("bias row:");
    for (int j = 0; j < N_HID; j += 3)
        printf(" %.6e", w[(size_t)n_in * N_HID + j]);
    printf("\nw[0][0] = %.6e  w[n_in/2][5] = %.6e\n",
           w[0], w[(size_t)(n_in / 2) * N_HID + 5]);

    free(input);
    free(w);
    free(oldw);
    free(hidden);
    free(delta);
    return 0;
}
