// params.h: simulation parameters shared by host and device code.
#pragma once

#ifndef PARTICLE_COUNT
#define PARTICLE_COUNT 1024
#endif

constexpr int kThreads = 128;
constexpr float kDt = 0.01f;
constexpr float kDamping = 0.995f;

struct Box {
    float lo, hi;
};
