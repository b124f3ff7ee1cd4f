(L_x_size_0_ == 4) &&
(L_x_size_1_ == L_y_size_1_ * 2) &&
(L_y_size_0_ == 4) &&
(L_x_stride_0_ == L_y_size_1_ * 2) &&
(L_x_stride_1_ == 1) &&
(L_y_stride_0_ == L_y_size_1_) &&
(L_y_stride_1_ == 1) &&
((2 <= L_y_size_1_) && (L_y_size_1_ <= 512))
