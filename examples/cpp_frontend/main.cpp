// A small program against torchlite's C++ front end: what it would be with
// libtorch, include included.
#include <torch/torch.h>

#include <iostream>

using namespace torch::autograd;

// f(x) = x * constant, with its own backward.
class MulConstant : public Function<MulConstant> {
 public:
  static Variable forward(AutogradContext* ctx, Variable variable, double constant) {
    ctx->saved_data["constant"] = constant;
    return variable * constant;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    return {grad_outputs[0] * ctx->saved_data["constant"].toDouble(), Variable()};
  }
};

int main() {
  torch::manual_seed(0);
  auto x = torch::randn({2, 2}, torch::requires_grad());
  auto w = torch::ones({2, 2}, torch::requires_grad());
  auto y = torch::tanh(x.matmul(w) + 1).pow(2).sum();
  std::cout << "y = " << y.item<double>() << " (" << y.grad_fn()->name() << ")" << std::endl;

  // first and second derivatives
  auto g = torch::autograd::grad({y}, {x}, {}, /*retain_graph=*/true, /*create_graph=*/true)[0];
  std::cout << "dy/dx =\n" << g << std::endl;
  g.sum().backward();
  std::cout << "d(sum dy/dx)/dw =\n" << w.grad() << std::endl;

  auto z = MulConstant::apply(x, 5.5);
  z.sum().backward();
  std::cout << "custom function: " << z.grad_fn()->name() << std::endl;
  return 0;
}
