/*
 * backprop.c -- one hidden layer of a neural network trained by back
 * propagation, after Rodinia's backprop: the input->hidden layer forward
 * pass and the input->hidden weight adjustment run on the device; the small
 * hidden->output layer and the error terms are computed on the host.
 *
 * EXPERT mapping: the inputs, weights and momentum terms live on the device
 * for all epochs; per epoch the host sends the new pattern and the hidden
 * deltas and fetches the hidden activations; the weights come back once.
 *
 * Usage: backprop [input_units] [epochs]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define ETA 0.3
#define MOMENTUM 0.3
#define HIDDEN 16
#define OUTPUT 1

typedef struct {
    int input_n, hidden_n, output_n;
    double *input_units;        /* input_n + 1 */
    double *hidden_units;       /* hidden_n + 1 */
    double *output_units;       /* output_n + 1 */
    double *hidden_delta;       /* hidden_n + 1 */
    double *output_delta;       /* output_n + 1 */
    double *target;             /* output_n + 1 */
    double *input_weights;      /* (input_n + 1) x (hidden_n + 1), row major */
    double *hidden_weights;     /* (hidden_n + 1) x (output_n + 1) */
    double *input_prev_weights; /* same shape as input_weights */
} BPNN;

static double *alloc_1d(int n)
{
    double *p = (double *)malloc(n * sizeof(double));
    if (p == NULL) {
        fprintf(stderr, "alloc_1d: out of memory\n");
        exit(1);
    }
    return p;
}

static double squash(double x)
{
    return 1.0 / (1.0 + exp(-x));
}

static BPNN *bpnn_create(int n_in, int n_hidden, int n_out)
{
    BPNN *net = (BPNN *)malloc(sizeof(BPNN));
    net->input_n = n_in;
    net->hidden_n = n_hidden;
    net->output_n = n_out;
    net->input_units = alloc_1d(n_in + 1);
    net->hidden_units = alloc_1d(n_hidden + 1);
    net->output_units = alloc_1d(n_out + 1);
    net->hidden_delta = alloc_1d(n_hidden + 1);
    net->output_delta = alloc_1d(n_out + 1);
    net->target = alloc_1d(n_out + 1);
    net->input_weights = alloc_1d((n_in + 1) * (n_hidden + 1));
    net->hidden_weights = alloc_1d((n_hidden + 1) * (n_out + 1));
    net->input_prev_weights = (double *)calloc((size_t)(n_in + 1) * (n_hidden + 1), sizeof(double));
    for (int k = 0; k <= n_in; k++)
        for (int j = 0; j <= n_hidden; j++)
            net->input_weights[k * (n_hidden + 1) + j] = ((k * 31 + j * 17) % 64 - 32) / 1024.0;
    for (int j = 0; j <= n_hidden; j++)
        net->hidden_weights[j * (n_out + 1) + 1] = ((j * 13) % 16 - 8) / 64.0;
    return net;
}

static void load_pattern(BPNN *net, int epoch)
{
    net->input_units[0] = 1.0;
    for (int k = 1; k <= net->input_n; k++)
        net->input_units[k] = ((k * 7 + epoch * 3) % 32) / 32.0;
    net->target[1] = 0.125 * (epoch % 8);
}

int main(int argc, char **argv)
{
    int layer_size = 4096, epochs = 6;
    if (argc > 1)
        layer_size = atoi(argv[1]);
    if (argc > 2)
        epochs = atoi(argv[2]);
    if (layer_size % 16 != 0 || epochs < 1) {
        fprintf(stderr, "The number of input points must be divided by 16\n");
        return 1;
    }
    BPNN *net = bpnn_create(layer_size, HIDDEN, OUTPUT);
    int in = net->input_n, hid = net->hidden_n;
    int wsize = (in + 1) * (hid + 1);
    double *input_units = net->input_units;
    double *hidden_units = net->hidden_units;
    double *hidden_delta = net->hidden_delta;
    double *input_weights = net->input_weights;
    double *input_prev_weights = net->input_prev_weights;

    printf("Input layer size : %d\n", layer_size);
#pragma omp target data map(alloc: input_units[0:in + 1], hidden_units[0:hid + 1], hidden_delta[0:hid + 1]) \
                        map(tofrom: input_weights[0:wsize]) map(to: input_prev_weights[0:wsize])
    for (int epoch = 0; epoch < epochs; epoch++) {
        load_pattern(net, epoch);

        /* input -> hidden forward pass */
#pragma omp target update to(input_units[0:in + 1])
#pragma omp target teams distribute parallel for
        for (int j = 1; j <= hid; j++) {
            double sum = 0.0;
            for (int k = 0; k <= in; k++)
                sum += input_weights[k * (hid + 1) + j] * input_units[k];
            hidden_units[j] = squash(sum);
        }

#pragma omp target update from(hidden_units[1:hid])
        /* hidden -> output and the error terms, on the host */
        hidden_units[0] = 1.0;
        double out = 0.0;
        for (int j = 0; j <= hid; j++)
            out += net->hidden_weights[j * 2 + 1] * hidden_units[j];
        net->output_units[1] = squash(out);
        double o = net->output_units[1];
        net->output_delta[1] = o * (1.0 - o) * (net->target[1] - o);
        double herr = 0.0;
        for (int j = 1; j <= hid; j++) {
            double h = hidden_units[j];
            hidden_delta[j] = h * (1.0 - h) * net->hidden_weights[j * 2 + 1] * net->output_delta[1];
            herr += fabs(hidden_delta[j]);
        }
        for (int j = 0; j <= hid; j++)
            net->hidden_weights[j * 2 + 1] += ETA * net->output_delta[1] * hidden_units[j];

        /* adjust the input -> hidden weights */
#pragma omp target update to(hidden_delta[1:hid])
#pragma omp target teams distribute parallel for
        for (int k = 0; k <= in; k++) {
            for (int j = 1; j <= hid; j++) {
                int w = k * (hid + 1) + j;
                double new_dw = ETA * hidden_delta[j] * input_units[k] + MOMENTUM * input_prev_weights[w];
                input_weights[w] += new_dw;
                input_prev_weights[w] = new_dw;
            }
        }
        printf("epoch %d: output %.9f  output delta %.9e  hidden error %.9e\n", epoch, o,
               net->output_delta[1], herr);
    }

    double wsum = 0.0;
    for (int w = 0; w < wsize; w++)
        wsum += input_weights[w];
    printf("sum of input weights %.9f\n", wsum);
    printf("w[1][1] %.9e  w[%d][%d] %.9e\n", input_weights[hid + 2], in, hid, input_weights[wsize - 1]);
    return 0;
}
