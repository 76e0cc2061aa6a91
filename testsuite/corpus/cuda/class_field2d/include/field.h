// field.h -- a 2-D scalar field that owns its device copy.
#ifndef FIELD_H
#define FIELD_H

class Field {
public:
    Field(int nx, int ny);
    ~Field();
    void upload(const float *host);
    void download(float *host) const;
    void blur(Field &out) const;
    void scale(float s);
    int nx() const { return nx_; }
    int ny() const { return ny_; }

private:
    int nx_, ny_;
    float *data_;
};

#endif
