// main.cu: a particle system in a box; the kernels live in src/kernels/*.cuh.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#include "params.h"
#include "kernels/integrate.cuh"

class ParticleSystem {
public:
    explicit ParticleSystem(int n) : n_(n), pos_(n), vel_(n, 0.0f)
    {
        for (int i = 0; i < n; ++i)
            pos_[i] = -1.0f + 2.0f * (i % 101) / 100.0f;
        cudaMalloc(&d_pos_, n * sizeof(float));
        cudaMalloc(&d_vel_, n * sizeof(float));
        cudaMemcpy(d_pos_, pos_.data(), n * sizeof(float), cudaMemcpyHostToDevice);
        cudaMemcpy(d_vel_, vel_.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    }
    ~ParticleSystem()
    {
        cudaFree(d_pos_);
        cudaFree(d_vel_);
    }
    void step(int count)
    {
        int blocks = (n_ + kThreads - 1) / kThreads;
        Box box = {-0.8f, 0.8f};
        for (int s = 0; s < count; ++s) {
            accelerate<<<blocks, kThreads>>>(d_pos_, d_vel_, n_);
            advance<<<blocks, kThreads>>>(d_pos_, d_vel_, n_, box);
        }
    }
    double energy()
    {
        cudaMemcpy(pos_.data(), d_pos_, n_ * sizeof(float), cudaMemcpyDeviceToHost);
        cudaMemcpy(vel_.data(), d_vel_, n_ * sizeof(float), cudaMemcpyDeviceToHost);
        double e = 0;
        for (int i = 0; i < n_; ++i)
            e += 0.5 * vel_[i] * vel_[i] + 0.25 * pos_[i] * pos_[i];
        return e;
    }

private:
    int n_;
    std::vector<float> pos_, vel_;
    float *d_pos_ = nullptr, *d_vel_ = nullptr;
};

int main()
{
    ParticleSystem system(PARTICLE_COUNT);
    std::printf("particles: %d\n", PARTICLE_COUNT);
    for (int round = 0; round < 3; ++round) {
        system.step(10);
        std::printf("round %d energy %.6f\n", round, system.energy());
    }
    return 0;
}
